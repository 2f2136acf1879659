import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { INestApplication } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AppConfig } from '../../config/app-config.js';
import { errorEnvelope } from '../envelope.js';
import { UNAVAILABLE_MESSAGE } from '../filters/api-exception.filter.js';
import type { AnswerableRequest } from '../answers/operation-answers.js';
import type { HttpPipeline, PipelineDependencies } from './pipeline.js';
import { answerClientError, KEEP_ALIVE_TIMEOUT_MS, recordCompletedRequest, REQUEST_TIMEOUT_MS, requestIdFor, trustNearest } from './request-basics.js';
import { isStreamedBody, readServiceBody } from './request-body.js';

type ExpressServiceRequest = Request & AnswerableRequest;

/**
 * The pipeline on Express (`HTTP_ADAPTER=express`), for deployments that need Express
 * middleware; it behaves as the Fastify one does, one middleware in front of Nest's routes.
 */
export function expressPipeline(config: AppConfig): HttpPipeline {
  const app = express();
  app.disable('x-powered-by');
  // Answers are built per request; an ETag would cost a hash of every body and mean nothing to POSTs.
  app.set('etag', false);
  // As Fastify routes: `/v2/folders/add/` and `/V2/folders/add` are unknown operations.
  app.set('strict routing', true);
  app.set('case sensitive routing', true);
  app.set('trust proxy', typeof config.trustProxy === 'number' ? trustNearest(config.trustProxy) : config.trustProxy);
  let closing = false;
  // Requests that arrive while the app closes get UNAVAILABLE, as on Fastify (its `preClose`).
  // Not the server's 'close' event: supertest closes the server after every request.
  const adapter = new (class extends ExpressAdapter {
    override close(): ReturnType<ExpressAdapter['close']> {
      closing = true;
      return super.close();
    }

    // Answers already encoded as JSON (`JsonText`) leave as they are; Nest's Express adapter
    // would serialise a Buffer as `{ "type": "Buffer", ... }`, where Fastify sends its bytes.
    override reply(response: Response, body: unknown, statusCode?: number): unknown {
      if (!Buffer.isBuffer(body)) return super.reply(response, body, statusCode);
      if (statusCode) response.status(statusCode);
      return response.send(body);
    }
  })(app);
  return {
    adapter,
    install(nest: INestApplication, dependencies: PipelineDependencies): void {
      const server = nest.getHttpServer() as Server;
      server.requestTimeout = REQUEST_TIMEOUT_MS;
      server.headersTimeout = REQUEST_TIMEOUT_MS;
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      // Replaces Node's plain-text 400 for what its HTTP parser refuses.
      server.removeAllListeners('clientError');
      server.on('clientError', answerClientError);
      // Registered before `init()`, so it runs before every route Nest adds.
      app.use((incoming: Request, response: Response, next: NextFunction) => {
        const request = incoming as ExpressServiceRequest;
        const started = performance.now();
        request.id = requestIdFor(request);
        request.operationAnswers = dependencies.answers;
        response.setHeader('x-request-id', request.id);
        response.once('finish', () => {
          const route = (request.route as { path?: unknown } | undefined)?.path;
          recordCompletedRequest(dependencies, {
            id: request.id,
            method: request.method,
            url: request.originalUrl,
            route: typeof route === 'string' ? route : undefined,
            status: response.statusCode,
            elapsedMs: performance.now() - started,
          });
        });
        if (closing) {
          response.status(503).setHeader('connection', 'close');
          response.json(errorEnvelope('UNAVAILABLE', UNAVAILABLE_MESSAGE));
          return;
        }
        if (!hasBody(request) || isStreamedBody(request.method, request.originalUrl, request.headers)) return next();
        // A refusal goes to Nest's error handler, which answers with the exception filter.
        readServiceBody(request, request, dependencies.config, (error, body) => {
          if (error) {
            // The body did not arrive in time: this connection ends with the answer.
            response.setHeader('connection', 'close');
            return next(error);
          }
          request.body = body;
          next();
        });
      });
    },
    ready: () => Promise.resolve(),
    beginDrain: () => {
      closing = true;
    },
  };
}

/** A request carries a body when it says how long it is or that it is chunked (RFC 9112 6.3). */
function hasBody(request: Request): boolean {
  return request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');
}
