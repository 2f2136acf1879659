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

/** Where a pre-signed attachment upload PUTs its raw bytes (`attachments/` serves it). */
export const STREAMED_UPLOAD_PATH = '/v2/attachments/upload';

/**
 * Bodies both pipelines leave unread, for the route to stream to disk itself: a multipart
 * body (a comment's attachment upload; any other operation gets no `data`, and says so), and
 * the PUT of a pre-signed upload, whatever its content type (raw bytes, never JSON).
 */
export function isStreamedBody(method: string | undefined, url: string | undefined, headers: IncomingMessage['headers']): boolean {
  if (/^multipart\/form-data\b/i.test(headers['content-type'] ?? '')) return true;
  return method === 'PUT' && (url ?? '').split('?', 1)[0] === STREAMED_UPLOAD_PATH;
}

type BodyResult =
  | { body: unknown }
  | { problem: BodyProblem }
  | { empty: true }
  /** Answered at once, before credentials: the body did not arrive in time. */
  | { refused: 408; message: string };

/**
 * A body over the limit is read to its end without keeping it (however far over the limit),
 * and noted as too large: the answer (413) comes once the client has sent everything. Answering
 * while it still sends, then closing, left unread bytes on the socket, so the kernel sent a reset
 * that could reach the client before the answer (6 of 375 10 MB bodies under parallel load).
 * What bounds the reading is `deadlineMs`: a body not in by then is refused (408) and the
 * connection closes.
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
  const deadline = setTimeout(() => {
    payload.removeAllListeners('data');
    payload.resume();
    answer({ refused: 408, message: 'The request body did not arrive in time.' });
  }, deadlineMs);
  payload.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) tooLarge = true;
    if (!tooLarge) chunks.push(chunk);
  });
  payload.once('error', () => answer({ problem: { kind: 'malformed' } }));
  payload.once('end', () => {
    if (tooLarge) return answer({ problem: { kind: 'too-large', limit } });
    if (size === 0) return answer({ empty: true });
    try {
      answer({ body: JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8')) });
    } catch (error) {
      answer({ problem: { kind: 'malformed', jsonError: (error as Error).message } });
    }
  });
}
