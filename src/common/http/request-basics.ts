import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorEnvelope } from '../envelope.js';
import type { Logger as Pino } from 'pino';
import type { PipelineDependencies } from './pipeline.js';

/** Longest time a whole request (headers and body) may take to arrive. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Longest time a body may take to arrive from a caller that sent no credential headers. */
const ANONYMOUS_BODY_TIMEOUT_MS = 5_000;
/** Kept-alive connections stay open this long between requests (above common proxies' 60 s). */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

const REQUEST_ID = /^[\w.:@-]{1,128}$/;

/** The caller's `x-request-id` when it is a sane token, else a new UUID. */
export function requestIdFor(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
}

/**
 * How long this request's body may take: a caller that names no credentials gets little time,
 * since public operations take a few fields and a slow anonymous body only ties up a connection.
 */
export function bodyDeadlineMs(request: IncomingMessage, headerProduct: string): number {
  const named = request.headers[`x-${headerProduct}-api-key`] !== undefined || request.headers[`x-${headerProduct}-workspace-id`] !== undefined;
  return named ? REQUEST_TIMEOUT_MS : ANONYMOUS_BODY_TIMEOUT_MS;
}

/** Trust the nearest `hops` proxies about the client address (both frameworks take this form). */
export function trustNearest(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/**
 * What Node's HTTP parser refuses before any route runs (headers too large, a request that
 * timed out, bytes that are not HTTP) still gets the error envelope, then the connection closes.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request did not arrive in time.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request headers are too large.']
        : [400, 'The request is not valid HTTP.'];
  const body = JSON.stringify(errorEnvelope('INVALID_ARGUMENT', message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** What the pipeline knows about a request once it has been answered. */
export interface CompletedRequest {
  readonly id: string;
  readonly method: string;
  readonly url: string;
  /** The route that answered (`/v2/folders/add`), or undefined for unknown paths. */
  readonly route: string | undefined;
  readonly status: number;
  readonly elapsedMs: number;
}

/**
 * The request lines' logger: the service's, without its redaction. A request line holds only the
 * fields `recordCompletedRequest` names (none of them a secret), and pino's redaction walked
 * every line for the secrets' paths anyway: 6 µs a line instead of 2 here.
 */
const requestLoggers = new WeakMap<Pino, Pino>();

function requestLogger(logger: Pino): Pino {
  let child = requestLoggers.get(logger);
  if (!child) requestLoggers.set(logger, (child = logger.child({}, { redact: [] })));
  return child;
}

/**
 * Counts a request with its latency by operation, and logs one line for it (method, path,
 * status, time; never headers or bodies). Labelled by route, never by the raw path: unknown
 * paths would grow the label set without bound.
 */
export function recordCompletedRequest({ logger: serviceLogger, metrics }: PipelineDependencies, request: CompletedRequest): void {
  const logger = requestLogger(serviceLogger);
  const operation = request.route ?? 'unknown';
  metrics.requests.inc({ operation, status: request.status });
  metrics.latency.observe({ operation }, request.elapsedMs / 1000);
  // One line per request at the default level; LOG_LEVEL=warn keeps only failures' lines.
  const level = request.status >= 500 ? 'error' : 'info';
  if (logger.isLevelEnabled(level)) {
    logger[level](
      {
        req: { id: request.id, method: request.method, path: request.url.split('?')[0] },
        res: { statusCode: request.status },
        responseTimeMs: request.elapsedMs,
      },
      'request completed',
    );
  }
}
