import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../../config/app-config.js';
import { ApiError } from '../errors.js';
import type { BodyProblem } from '../request-context.js';
import { bodyDeadlineMs } from './request-basics.js';

/**
 * Reads a request's body as JSON whatever its content type, calling back once (no promise: this
 * runs on every request) with the parsed body (undefined when empty), or with an error to answer
 * at once. A body that is too large or does not parse is not an error here: it is noted on
 * `holder.bodyProblem`, so credentials are checked first and `@RequestData()` reports it.
 */
export function readServiceBody(
  payload: IncomingMessage,
  holder: { bodyProblem?: BodyProblem },
  config: AppConfig,
  done: (error: ApiError | null, body?: unknown) => void,
): void {
  readJsonBody(payload, config.bodyLimitBytes, bodyDeadlineMs(payload, config.headerProduct), (result) => {
    if ('refused' in result) return done(new ApiError('INVALID_ARGUMENT', result.message, undefined, { httpStatus: result.refused }));
    if ('problem' in result) holder.bodyProblem = result.problem;
    done(null, 'body' in result ? result.body : undefined);
  });
}

type BodyResult =
  | { body: unknown }
  | { problem: BodyProblem }
  | { empty: true }
  /** Answered at once, before credentials: the body is far over the limit (413) or too slow (408). */
  | { refused: 408 | 413; message: string };

/**
 * A body over the limit is kept aside unless it is far over it, or does not arrive within
 * `deadlineMs`: those are refused, and the rest of the body is read and thrown away so the
 * answer reaches the client rather than a reset.
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
