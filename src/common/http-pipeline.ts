import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger as Pino } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { errorEnvelope } from './envelope.js';
import { ApiError } from './errors.js';
import { UNAVAILABLE_MESSAGE } from './filters/api-exception.filter.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ServiceRequest } from './request-context.js';

const REQUEST_ID = /^[\w.:@-]{1,128}$/;
/** `type/subtype` with optional parameters (RFC 9110 media-type tokens). */
const MEDIA_TYPE = /^\s*[!#$%&'*+.^`|~\w-]+\/[!#$%&'*+.^`|~\w-]+\s*(;\s*[!#$%&'*+.^`|~\w-]+=("[^"]*"|[!#$%&'*+.^`|~\w-]+)\s*)*;?\s*$/;

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
    // The whole request (headers and body) must arrive within this; the body reader below gives
    // callers without credentials far less. Late ones get a 408 envelope from `clientError`.
    requestTimeout: REQUEST_TIMEOUT_MS,
    clientErrorHandler: answerClientError,
    // Requests that arrive while closing get the UNAVAILABLE envelope from the hook below.
    return503OnClosing: false,
    keepAliveTimeout: 65_000,
    routerOptions: { ignoreTrailingSlash: false },
    // A hop count means: trust the nearest n proxies.
    trustProxy: typeof config.trustProxy === 'number' ? trustNearest(config.trustProxy) : config.trustProxy,
  });
}

/** Starts answering UNAVAILABLE, per app (see `beginDrain`). */
const draining = new WeakMap<FastifyInstance, () => void>();

/**
 * Shutdown's first step: from now on every request, on connections already open included, is
 * answered 503 UNAVAILABLE with `Connection: close`, so a client on a kept-alive connection gets
 * an answer it can retry elsewhere rather than a reset when the connection is closed.
 */
export function beginDrain(fastify: FastifyInstance): void {
  draining.get(fastify)?.();
}

/** Longest time a whole request may take to arrive. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Longest time a body may take to arrive from a caller that sent no credential headers. */
const ANONYMOUS_BODY_TIMEOUT_MS = 5_000;

/**
 * What Node's HTTP parser refuses before any route runs (headers too large, a request that
 * timed out, bytes that are not HTTP) still gets the error envelope, then the connection closes.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request did not arrive in time.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request headers are too large.']
        : [400, 'The request is not valid HTTP.'];
  const body = JSON.stringify(errorEnvelope('INVALID_ARGUMENT', message));
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
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
 * - each request is logged when it ends (method, path, status, time; never headers or bodies),
 *   and counted with its latency by operation in the metrics.
 */
export function installHttpPipeline(fastify: FastifyInstance, config: AppConfig, logger: Pino, metrics: Metrics): void {
  let closing = false;
  draining.set(fastify, () => (closing = true));
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
    // Bodies are JSON whatever the content type says; one that does not parse as a media type
    // (`x`, `;`, `/`) would otherwise stop the request in the router with 415.
    const contentType = request.headers['content-type'];
    if (contentType !== undefined && !MEDIA_TYPE.test(contentType)) request.headers['content-type'] = 'application/json';
    done();
  });

  fastify.removeAllContentTypeParsers();
  const credentialHeaders = [`x-${config.headerProduct}-api-key`, `x-${config.headerProduct}-workspace-id`];
  fastify.addContentTypeParser('*', (request: FastifyRequest, payload: IncomingMessage, done: (error: Error | null, body?: unknown) => void) => {
    // A caller that names no credentials gets little time to send its body: public operations
    // take a few fields, and a slow anonymous body only ties up a connection.
    const deadlineMs = credentialHeaders.some((name) => request.headers[name] !== undefined) ? REQUEST_TIMEOUT_MS : ANONYMOUS_BODY_TIMEOUT_MS;
    readJsonBody(payload, config.bodyLimitBytes, deadlineMs, (result) => {
      if ('refused' in result) return done(new ApiError('INVALID_ARGUMENT', result.message, undefined, { httpStatus: result.refused }));
      if ('problem' in result) (request as ServiceRequest).bodyProblem = result.problem;
      done(null, 'body' in result ? result.body : undefined);
    });
  });

  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const status = reply.statusCode;
    // Labelled by route, never by the raw path (unknown paths would grow the label set without bound).
    const operation = request.routeOptions.url ?? 'unknown';
    metrics.requests.inc({ operation, status });
    metrics.latency.observe({ operation }, reply.elapsedTime / 1000);
    // One line per request at the default level; LOG_LEVEL=warn keeps only failures' lines.
    const level = status >= 500 ? 'error' : 'info';
    if (logger.isLevelEnabled(level)) {
      logger[level](
        { req: { id: request.id, method: request.method, path: request.url.split('?')[0] }, res: { statusCode: status }, responseTimeMs: reply.elapsedTime },
        'request completed',
      );
    }
    done();
  });
}

type BodyResult =
  | { body: unknown }
  | { problem: NonNullable<ServiceRequest['bodyProblem']> }
  | { empty: true }
  /** Answered at once, before credentials: the body is far over the limit (413) or too slow (408). */
  | { refused: 408 | 413; message: string };

/**
 * Reads and parses a body, calling back once (no promise: this runs on every request). A body
 * over the limit is kept aside for `@RequestData()` (credentials are checked first) unless it is
 * far over it, or does not arrive within `deadlineMs`: those are answered at once, and the rest
 * of the body is read and thrown away so the answer reaches the client rather than a reset.
 */
function readJsonBody(payload: IncomingMessage, limit: number, deadlineMs: number, callback: (result: BodyResult) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = Number(payload.headers['content-length'] ?? 0) > limit;
  let answered = false;
  const answer = (result: BodyResult) => {
    if (answered) return;
    answered = true;
    clearTimeout(deadline);
    callback(result);
  };
  const refuse = (status: 408 | 413, message: string) => {
    payload.removeAllListeners('data');
    payload.resume();
    answer({ refused: status, message });
  };
  const deadline = setTimeout(() => refuse(408, 'The request body did not arrive in time.'), deadlineMs);
  payload.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) tooLarge = true;
    if (!tooLarge) chunks.push(chunk);
    else if (size > limit * 4) refuse(413, `Request body exceeds the limit of ${limit} bytes.`);
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
