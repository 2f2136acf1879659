import type { ErrorCode } from './errors.js';

/** `{ result: { status: 'success', message, data?, ...paging } }` (contract 1.2). */
export interface SuccessEnvelope {
  result: { status: 'success'; message: string; data?: unknown; [resultField: string]: unknown };
}

/** `{ error: { status, message, details? } }` (contract 1.2). */
export interface ErrorEnvelope {
  error: { status: ErrorCode; message: string; details?: Record<string, unknown> };
}

/**
 * How an operation's answer fills `result`, declared once in `@Operation({ result })` so a
 * handler only returns what its service answers:
 * - `data` (the default): the answer is `data` (`null` when there is none);
 * - `fields`: the answer's fields sit in `result` beside `status` and `message` (`data` with
 *   `pageToken` or `nextPageToken`, or other fields an operation answers beside it); fields
 *   that are `undefined` are left out;
 * - `none`: `status` and `message` alone (rest-interface convention 2: add CRDT data);
 * - `only`: the answer is the whole `result`, without `status` and `message` (rest-interface
 *   convention 2: 'Suggest decision' answers `{ result: { primary, conflict } }`).
 */
export type ResultShape = 'data' | 'fields' | 'none' | 'only';

/** `result`'s fields beside `status` and `message` for an answer of that shape (`only` is not one). */
export function resultFields(shape: Exclude<ResultShape, 'only'>, returned: unknown): Record<string, unknown> {
  if (shape === 'none') return {};
  if (shape === 'data') return { data: returned ?? null };
  return Object.fromEntries(Object.entries(returned as Record<string, unknown>).filter(([, value]) => value !== undefined));
}

/**
 * `data` already serialised as JSON, in encoded chunks. For large answers built from many shared
 * parts (permissions for 100 users × 100 resources repeat the same entries), encoding each part
 * once and splicing the bytes is several times cheaper than serialising the whole object, and
 * sending bytes spares the transport a second pass to measure and encode the text.
 */
export class JsonText {
  private readonly chunks: Buffer[] = [];
  private pending = '';

  /** Appends JSON text. */
  text(json: string): this {
    this.pending += json;
    return this;
  }

  /** Appends JSON already encoded (a shared part). */
  bytes(json: Buffer): this {
    if (this.pending) this.chunks.push(Buffer.from(this.pending));
    this.pending = '';
    this.chunks.push(json);
    return this;
  }

  /**
   * Everything appended, encoded, in order. The text appended last is encoded here once and kept:
   * an answer holding the same `JsonText` twice (judgments' `data` and `results`) encodes it once.
   */
  parts(): Buffer[] {
    if (this.pending) this.chunks.push(Buffer.from(this.pending));
    this.pending = '';
    return this.chunks;
  }
}

/**
 * The success envelope around pre-serialised `data`, and fields beside it, as encoded JSON; a
 * field beside it may be pre-serialised too (an answer that repeats `data` under another name
 * serialises it once).
 */
export function successEnvelopeBytes(message: string, data: JsonText, beside: Record<string, unknown> = {}): Buffer {
  const parts = [Buffer.from(`{"result":{"status":"success","message":${JSON.stringify(message)},"data":`), ...data.parts()];
  for (const [name, value] of Object.entries(beside)) {
    if (value === undefined) continue;
    if (value instanceof JsonText) parts.push(Buffer.from(`,${JSON.stringify(name)}:`), ...value.parts());
    else parts.push(Buffer.from(`,${JSON.stringify(name)}:${JSON.stringify(value)}`));
  }
  parts.push(Buffer.from('}}'));
  return Buffer.concat(parts);
}

/** `data` answered with `message` instead of the operation's own (a wording that depends on the answer). */
export class WithMessage {
  constructor(
    readonly data: unknown,
    readonly message: string,
  ) {}
}

/** The success envelope: `status`, `message`, and the answer's fields in `result` (see `resultFields`). */
export function successEnvelope(message: string, fields: Record<string, unknown>): SuccessEnvelope {
  return { result: { status: 'success', message, ...fields } };
}

export function errorEnvelope(status: ErrorCode, message: string, details?: Record<string, unknown>): ErrorEnvelope {
  return details === undefined ? { error: { status, message } } : { error: { status, message, details } };
}
