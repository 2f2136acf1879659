import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { errorEnvelope } from '../envelope.js';
import { ApiError, type ErrorCode, HTTP_STATUS_BY_CODE } from '../errors.js';
import { RATE_LIMIT_FIELD, RATE_LIMIT_POLICY_FIELD } from '../rate-limit/rate-limit-headers.js';
import type { ServiceRequest } from '../request-context.js';

export const OPERATION_NOT_FOUND_MESSAGE = 'Operation not found.';
export const INTERNAL_MESSAGE = 'An internal error occurred.';
export const UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable. Try again later.';

/**
 * Driver error codes meaning "the database is not there, or too busy, right now" rather than a
 * bug: connections refused or lost, the server shutting down or full, SQLite's writer lock, and
 * PostgreSQL's statement time limit (57014) and lock wait limit (55P03).
 */
const UNAVAILABLE_DRIVER_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '57014',
  '55P03',
  'SQLITE_BUSY',
]);
/** What node-postgres's pool says when no connection came free within `DATABASE_POOL_WAIT_MS` (it sets no code). */
const POOL_WAIT_MESSAGE = 'timeout exceeded when trying to connect';
/** When a client may try again after a busy database, in seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 1;

function databaseUnavailable(exception: unknown): boolean {
  const { code, message } = (exception ?? {}) as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && UNAVAILABLE_DRIVER_CODES.has(code)) || (typeof message === 'string' && message.includes(POOL_WAIT_MESSAGE));
}

/**
 * The one place errors become responses: every exception, from any layer, leaves as the
 * error envelope with the status of `HTTP_STATUS_BY_CODE`. Unexpected ones are logged with
 * their stack and answered with a generic INTERNAL carrying the request id.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<unknown>();
    const request = http.getRequest<ServiceRequest>();
    const error = this.toApiError(exception, request);
    const adapter = this.adapterHost.httpAdapter;
    if (error.options.retryAfterSeconds !== undefined) {
      adapter.setHeader(response, 'Retry-After', String(Math.max(1, Math.ceil(error.options.retryAfterSeconds))));
    }
    if (error.options.rateLimit) {
      adapter.setHeader(response, RATE_LIMIT_POLICY_FIELD, error.options.rateLimit.policy);
      adapter.setHeader(response, RATE_LIMIT_FIELD, error.options.rateLimit.limit);
    }
    adapter.reply(response, errorEnvelope(error.code, error.message, error.details), error.httpStatus);
  }

  private toApiError(exception: unknown, request: ServiceRequest): ApiError {
    const answerable = answerableError(exception);
    if (answerable) return answerable;
    const requestId = String(request.id ?? '');
    if (databaseUnavailable(exception)) {
      this.logger.warn({ err: exception, requestId }, 'Database unavailable');
      return new ApiError('UNAVAILABLE', UNAVAILABLE_MESSAGE, { requestId }, { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS });
    }
    this.logger.error({ err: exception, requestId }, 'Unexpected error');
    return new ApiError('INTERNAL', INTERNAL_MESSAGE, { requestId });
  }
}

/**
 * The answer an exception stands for when it is one (an `ApiError`, or the framework's own
 * refusal of the request); `undefined` for a fault, which the filter answers with INTERNAL or
 * UNAVAILABLE. Also what the `Idempotency-Key` handling reads to decide whether to keep an answer.
 */
export function answerableError(exception: unknown): ApiError | undefined {
  if (exception instanceof ApiError) return exception;
  if (!(exception instanceof HttpException)) return undefined;
  // Our code never throws HttpException; these come from the framework itself.
  const status = exception.getStatus();
  if (status === 404 || status === 405) return new ApiError('NOT_FOUND', OPERATION_NOT_FOUND_MESSAGE);
  const code = codeForStatus(status);
  if (code !== 'INTERNAL') return new ApiError(code, exception.message);
  // Any other refusal of the request by the framework (415, say) is still the caller's input.
  if (status >= 400 && status < 500)
    return new ApiError('INVALID_ARGUMENT', /[.!]$/.test(exception.message) ? exception.message : `${exception.message}.`, undefined, {
      httpStatus: status,
    });
  return undefined;
}

function codeForStatus(status: number): ErrorCode {
  const match = (Object.entries(HTTP_STATUS_BY_CODE) as [ErrorCode, number][]).find(([, http]) => http === status);
  return match?.[0] ?? 'INTERNAL';
}
