import type { IncomingMessage } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config.js';
import { errorEnvelope } from '../envelope.js';
import type { ApiError } from '../errors.js';
import { UNAVAILABLE_MESSAGE } from '../filters/api-exception.filter.js';
import type { ServiceRequest } from '../request-context.js';
import type { AnswerableRequest } from '../answers/operation-answers.js';
import type { HttpPipeline, PipelineDependencies } from './pipeline.js';
import { answerClientError, KEEP_ALIVE_TIMEOUT_MS, recordCompletedRequest, REQUEST_TIMEOUT_MS, requestIdFor, trustNearest } from './request-basics.js';
import { isStreamedBody, readServiceBody } from './request-body.js';

/** `type/subtype` with optional parameters (RFC 9110 media-type tokens). */
const MEDIA_TYPE = /^\s*[!#$%&'*+.^`|~\w-]+\/[!#$%&'*+.^`|~\w-]+\s*(;\s*[!#$%&'*+.^`|~\w-]+=("[^"]*"|[!#$%&'*+.^`|~\w-]+)\s*)*;?\s*$/;

/**
 * The default pipeline, on Fastify: on this service's hardware it answers 2-3x the requests of
 * Express (docs/benchmark.md). Fastify's own logger is off: the service logs through its pino
 * instance without per-request child loggers.
 */
export function fastifyPipeline(config: AppConfig): HttpPipeline {
  const adapter = new FastifyAdapter({
    logger: false,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // The body reader enforces the configured limit itself, after authentication.
    bodyLimit: Number.MAX_SAFE_INTEGER,
    forceCloseConnections: 'idle',
    // Late requests get a 408 envelope from `clientError`; the body reader gives callers without
    // credentials far less.
    requestTimeout: REQUEST_TIMEOUT_MS,
    clientErrorHandler: answerClientError,
    // Requests that arrive while closing get the UNAVAILABLE envelope from the hook below.
    return503OnClosing: false,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    routerOptions: { ignoreTrailingSlash: false },
    trustProxy: typeof config.trustProxy === 'number' ? trustNearest(config.trustProxy) : config.trustProxy,
  });
  const fastify = adapter.getInstance<FastifyInstance>();
  let closing = false;
  return {
    adapter,
    install(_app: INestApplication, dependencies: PipelineDependencies): void {
      fastify.addHook('preClose', (done: () => void) => {
        closing = true;
        done();
      });
      fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        reply.header('x-request-id', request.id);
        (request as unknown as AnswerableRequest).operationAnswers = dependencies.answers;
        if (closing) {
          reply.code(503).header('connection', 'close').send(errorEnvelope('UNAVAILABLE', UNAVAILABLE_MESSAGE));
          return;
        }
        // One that does not parse as a media type (`x`, `;`, `/`) would otherwise stop the
        // request in Fastify's router with 415.
        const contentType = request.headers['content-type'];
        if (contentType !== undefined && !MEDIA_TYPE.test(contentType)) request.headers['content-type'] = 'application/json';
        done();
      });
      fastify.removeAllContentTypeParsers();
      fastify.addContentTypeParser('*', (request: FastifyRequest, payload: IncomingMessage, done: (error: ApiError | null, body?: unknown) => void) => {
        if (isStreamedBody(request.method, request.url, payload.headers)) return done(null, undefined);
        readServiceBody(payload, request as ServiceRequest, dependencies.config, done);
      });
      fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        recordCompletedRequest(dependencies, {
          id: request.id,
          method: request.method,
          url: request.url,
          route: request.routeOptions.url,
          status: reply.statusCode,
          elapsedMs: reply.elapsedTime,
        });
        done();
      });
    },
    ready: async () => {
      await fastify.ready();
    },
    beginDrain: () => {
      closing = true;
    },
  };
}
