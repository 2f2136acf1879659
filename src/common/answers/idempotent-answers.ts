import { Injectable, Logger } from '@nestjs/common';
import { type ErrorEnvelope, errorEnvelope } from '../envelope.js';
import { ApiError, type ErrorCode } from '../errors.js';
import { answerableError } from '../filters/api-exception.filter.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_IN_USE_MESSAGE,
  IDEMPOTENCY_KEY_PROBLEM,
  IDEMPOTENCY_KEY_REUSED_MESSAGE,
  IDEMPOTENT_REPLAYED_HEADER,
  isIdempotencyKey,
  requestHashText,
  scopeOf,
} from '../idempotency.js';
import { type IdempotencyKeyRef, IdempotencyStore, type RememberedAnswer } from '../idempotency-store.js';
import type { ServiceRequest } from '../request-context.js';
import { Secrets } from '../secrets.js';

/**
 * Errors whose answer is not kept: the key is released, so a retry runs the operation again.
 * Faults (5xx) and refusals that say "try again" (a rate limit, a concurrent change that won);
 * the idempotency refusals themselves are answered before any key is claimed.
 */
const RELEASED: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['RESOURCE_EXHAUSTED', 'ABORTED', 'INTERNAL', 'UNAVAILABLE']);

/** What answers need of a response: setting a header (Fastify's reply and Express's response both have it). */
export interface ResponseHeaders {
  header(name: string, value: string): unknown;
}

/**
 * `Idempotency-Key` on every operation (docs/reference/conventions.md), as Stripe and
 * draft-ietf-httpapi-idempotency-key-header have it. A request without the header costs one
 * property read. With it: a bad key is INVALID_ARGUMENT; an operation of an API key or a
 * workspace claims the key in `IdempotencyStore` before it runs, and its answer (success, or an
 * error the request itself caused) is kept and given again, marked `Idempotent-Replayed: true`,
 * to a repeat of the same body; another body is FAILED_PRECONDITION (400), a repeat while the
 * first still runs ABORTED (409, `Retry-After: 1`): the contract's one table of codes, not new ones. Public and console-session operations, and
 * bodies that could not be read as JSON (multipart uploads, malformed or oversized bodies), run as
 * if the key were absent: nothing is kept for them.
 *
 * `OperationAnswers` hands it an operation's whole enveloped answer only when the request
 * carries the header, so it keeps the very answer the client gets; the handler runs after the
 * guards, so the caller's scope is known and rate-limited requests never reach it.
 * Adapter-neutral: it reads the request's common fields and answers through Nest (a returned
 * body, or an error for the exception filter).
 */
@Injectable()
export class IdempotentAnswers {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyStore,
    private readonly secrets: Secrets,
  ) {}

  /** `answer()`, the operation's enveloped answer, at most once per key (see above); the request carries `Idempotency-Key`. */
  async around(request: ServiceRequest, response: ResponseHeaders, answer: () => Promise<unknown>): Promise<unknown> {
    const sent = request.headers[IDEMPOTENCY_KEY_HEADER];
    if (sent === undefined || request.method !== 'POST') return answer();
    if (!isIdempotencyKey(sent)) throw new ApiError('INVALID_ARGUMENT', IDEMPOTENCY_KEY_PROBLEM);
    const scope = scopeOf(request);
    if (scope === undefined || request.bodyProblem !== undefined) return answer();
    const hashed = requestHashText(request.body);
    if (hashed === undefined) return answer();
    const ref: IdempotencyKeyRef = { scope, path: request.url.split('?', 1)[0]!, key: sent };
    const found = await this.store.claim(ref, this.secrets.lookupHash(hashed));
    switch (found.kind) {
      case 'mismatch':
        throw new ApiError('FAILED_PRECONDITION', IDEMPOTENCY_KEY_REUSED_MESSAGE);
      case 'in-flight':
        throw new ApiError('ABORTED', IDEMPOTENCY_KEY_IN_USE_MESSAGE, undefined, { retryAfterSeconds: 1 });
      case 'replay':
        response.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
        return replayed(found.answer, response);
      case 'claimed': {
        let body: unknown;
        try {
          body = await answer();
        } catch (error) {
          await this.settle(ref, found.claim, error);
          throw error;
        }
        await this.keep(ref, found.claim, { status: 200, body: answerText(body) });
        return body;
      }
    }
  }

  /** Keeps an error's answer when the request caused it, else releases the key. */
  private settle(ref: IdempotencyKeyRef, claim: string, error: unknown): Promise<void> {
    const answer = answerableError(error);
    if (answer && answer.httpStatus < 500 && !RELEASED.has(answer.code)) {
      return this.keep(ref, claim, { status: answer.httpStatus, body: JSON.stringify(errorEnvelope(answer.code, answer.message, answer.details)) });
    }
    return this.store.release(ref, claim).catch((failure: unknown) => {
      // The key stays in flight until its lease ends; the client still gets the operation's answer.
      this.logger.warn({ err: failure, path: ref.path }, 'Releasing an Idempotency-Key failed');
    });
  }

  /**
   * Writes the answer. A failure is logged, not answered: the operation has run, and its answer
   * is the truthful one; the key then stays in flight until its lease ends.
   */
  private async keep(ref: IdempotencyKeyRef, claim: string, answer: RememberedAnswer): Promise<void> {
    try {
      await this.store.complete(ref, claim, answer);
    } catch (failure) {
      this.logger.warn({ err: failure, path: ref.path }, 'Keeping the answer of an Idempotency-Key failed');
    }
  }
}

/** An answer's body as sent: the envelope `OperationAnswers` made, as JSON text. */
function answerText(body: unknown): string {
  return Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body);
}

/** A kept answer again: a success as its bytes, an error thrown for the exception filter to answer as before. */
function replayed(answer: RememberedAnswer, response: ResponseHeaders): Buffer {
  if (answer.status >= 400) {
    const { error } = JSON.parse(answer.body) as ErrorEnvelope;
    throw new ApiError(error.status, error.message, error.details, { httpStatus: answer.status });
  }
  response.header('content-type', 'application/json; charset=utf-8');
  return Buffer.from(answer.body, 'utf8');
}
