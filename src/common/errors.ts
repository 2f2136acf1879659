import type { RateLimitFields } from './rate-limit/rate-limit-headers.js';

/**
 * Error codes of the wire contract (contract 1.2). Each maps to exactly one HTTP status in
 * `HTTP_STATUS_BY_CODE`; adding a code without a status does not compile.
 */
export type ErrorCode =
  /** Missing or invalid parameters, malformed body, bad page token. */
  | 'INVALID_ARGUMENT'
  /** The operation is not allowed in the current state (e.g. plan, feature off). */
  | 'FAILED_PRECONDITION'
  /** Credentials are wrong (get workspace only; elsewhere PERMISSION_DENIED). */
  | 'UNAUTHENTICATED'
  /** Invalid credentials for the operation, or the caller may not do this. */
  | 'PERMISSION_DENIED'
  /** The named record or operation does not exist for this caller. */
  | 'NOT_FOUND'
  /** A record with this identity already exists. */
  | 'ALREADY_EXISTS'
  /** A concurrent change won; retrying may succeed. */
  | 'ABORTED'
  /** A rate limit or quota is exhausted; `Retry-After` says when to retry. */
  | 'RESOURCE_EXHAUSTED'
  /** Unexpected failure, or a partly skipped batch where the spec asks for it. */
  | 'INTERNAL'
  /** The database is unreachable or the service is shutting down. */
  | 'UNAVAILABLE';

export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

/** The contract's refusal of an unknown API key or a wrong auth token (PERMISSION_DENIED), wherever credentials are checked. */
export const INVALID_CREDENTIALS = 'Invalid API key or auth token.';

export interface ApiErrorOptions {
  /** Overrides the table for the one case the contract names (413 for an oversized body). */
  httpStatus?: number;
  /** Sent as the `Retry-After` header (RESOURCE_EXHAUSTED). */
  retryAfterSeconds?: number;
  /** Sent as the `RateLimit-Policy` and `RateLimit` headers: the limits the request counted against. */
  rateLimit?: RateLimitFields;
}

/**
 * The only error type code below the controllers throws. The exception filter turns it into
 * the error envelope; its message and details reach the client as written.
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly options: ApiErrorOptions = {},
  ) {
    // An ApiError is an answer (refused input, a missing record), not a fault: it is never
    // logged with a stack, and capturing one cost every refused request a stack walk.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'ApiError';
  }

  get httpStatus(): number {
    return this.options.httpStatus ?? HTTP_STATUS_BY_CODE[this.code];
  }
}
