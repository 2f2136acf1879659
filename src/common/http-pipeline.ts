import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger as Pino } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { errorEnvelope } from './envelope.js';
import { UNAVAILABLE_MESSAGE } from './filters/api-exception.filter.js';
import type { ServiceRequest } from './request-context.js';

const REQUEST_ID = /^[\w.:@-]{1,128}$/;

/** The caller's `x-request-id` when it is a sane token, else a new UUID. */
export function requestIdFor(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
}

/**
 * The HTTP adapter, shared by `main.ts` and the tests. Fastify rather than Express: on this
 * service's hardware an empty Express handler already costs more than the whole per-request
 * budget of the benchmark targets (see README, "Benchmark"). Fastify's own logger is off: the
 * service logs through its pino instance without per-request child loggers.
 */
export function createHttpAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    logger: false,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // The body reader below enforces the configured limit itself, after authentication.
    bodyLimit: Number.MAX_SAFE_INTEGER,
    forceCloseConnections: 'idle',
    // Requests that arrive while closing get the UNAVAILABLE envelope from the hook below.
    return503OnClosing: false,
    keepAliveTimeout: 65_000,
    routerOptions: { ignoreTrailingSlash: false },
    // A hop count means: trust the nearest n proxies.
    trustProxy: typeof config.trustProxy === 'number' ? trustNearest(config.trustProxy) : config.trustProxy,
  });
}

function trustNearest(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/**
 * Request-level plumbing, before Nest's router:
 * - every response carries `x-request-id`; once shutdown starts, new requests on open
 *   connections get UNAVAILABLE;
 * - bodies are read as JSON whatever their content type, up to the limit; one that is too
 *   large or does not parse is not answered here but kept on the request, so credentials are
 *   checked first and `@RequestData()` reports it (contract 1.1);
 * - each request is logged when it ends (method, path, status, time; never headers or bodies).
 */
export function installHttpPipeline(fastify: FastifyInstance, config: AppConfig, logger: Pino): void {
  let closing = false;
  fastify.addHook('preClose', (done: () => void) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    reply.header('x-request-id', request.id);
    if (closing) {
      reply.code(503).header('connection', 'close').send(errorEnvelope('UNAVAILABLE', UNAVAILABLE_MESSAGE));
      return;
    }
    done();
  });

  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request: FastifyRequest, payload: IncomingMessage, done: (error: Error | null, body?: unknown) => void) => {
    readJsonBody(payload, config.bodyLimitBytes, (result) => {
      if ('problem' in result) (request as ServiceRequest).bodyProblem = result.problem;
      done(null, 'body' in result ? result.body : undefined);
    });
  });

  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const status = reply.statusCode;
    const level = status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
    if (logger.isLevelEnabled(level)) {
      logger[level](
        { req: { id: request.id, method: request.method, path: request.url.split('?')[0] }, res: { statusCode: status }, responseTimeMs: reply.elapsedTime },
        'request completed',
      );
    }
    done();
  });
}

type BodyResult = { body: unknown } | { problem: NonNullable<ServiceRequest['bodyProblem']> } | { empty: true };

/** Reads and parses a body, calling back once (no promise: this runs on every request). */
function readJsonBody(payload: IncomingMessage, limit: number, callback: (result: BodyResult) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = Number(payload.headers['content-length'] ?? 0) > limit;
  let answered = false;
  const answer = (result: BodyResult) => {
    if (!answered) {
      answered = true;
      callback(result);
    }
  };
  payload.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) tooLarge = true;
    if (!tooLarge) chunks.push(chunk);
    // Draining lets the error reach the client on this connection; past 4× the limit the
    // sender is not a client worth answering.
    else if (size > limit * 4) payload.destroy(new Error('request body far over the limit'));
  });
  payload.once('error', () => answer({ problem: { kind: 'malformed' } }));
  payload.once('end', () => {
    if (tooLarge) return answer({ problem: { kind: 'too-large', limit } });
    if (size === 0) return answer({ empty: true });
    try {
      answer({ body: JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8')) });
    } catch {
      answer({ problem: { kind: 'malformed' } });
    }
  });
}
