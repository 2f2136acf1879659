import { createHash } from 'node:crypto';
import { applyDecorators, Injectable } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ApiError } from './errors.js';
import { Secrets } from './secrets.js';
import { IsOptionalInteger, IsOptionalText } from './validation/rules.js';

/** Page sizes of contract 1.5. */
export const PAGE_SIZE = { default: 1000, min: 1, max: 1000 } as const;

/**
 * Bytes of stored records one page may carry: a page of large records is cut short (never below
 * one record) and continues with its `pageToken`, so no answer is too big to build or send
 * without holding up the service.
 */
export const PAGE_BYTES = 8 * 1024 * 1024;

/**
 * Opaque page tokens (contract 1.7): the keyset cursor, encrypted and authenticated, bound to
 * the caller, the operation and the filters that produced it. A token replayed with other
 * filters, by another key or after tampering does not open.
 */
@Injectable()
export class PageTokens {
  constructor(private readonly secrets: Secrets) {}

  /** Seals `cursor` (any JSON value) for the next page of `operation` with these `filters`. */
  encode(owner: string, operation: string, filters: unknown, cursor: unknown): string {
    return this.secrets.sealToken(JSON.stringify(cursor), bindingOf(owner, operation, filters));
  }

  /**
   * The page out of `pageSize + 1` fetched rows (the extra row only tells whether more follow),
   * and the token of the next page when they do; `cut`: the rows were cut short by their size
   * (`Sql.rowsWithinBytes`), so more follow.
   */
  page<T>(
    rows: T[],
    pageSize: number,
    owner: string,
    operation: string,
    filters: unknown,
    cursorOf: (last: T) => unknown,
    cut = false,
  ): { items: T[]; next?: string } {
    const items = rows.slice(0, pageSize);
    const last = items[items.length - 1];
    const more = cut || rows.length > pageSize;
    return { items, next: more && last !== undefined ? this.encode(owner, operation, filters, cursorOf(last)) : undefined };
  }

  /**
   * The cursor of a token from `encode`, or INVALID_ARGUMENT `Invalid page token.` With
   * `isCursor`, a cursor of another shape (a token sealed before its operation's order changed)
   * is refused the same way.
   */
  decode<T>(owner: string, operation: string, filters: unknown, token: string, isCursor?: (cursor: unknown) => cursor is T): T {
    const payload = this.secrets.openToken(token, bindingOf(owner, operation, filters));
    const cursor: unknown = payload === undefined ? undefined : JSON.parse(payload);
    if (payload === undefined || (isCursor && !isCursor(cursor))) throw new ApiError('INVALID_ARGUMENT', 'Invalid page token.');
    return cursor as T;
  }
}

/**
 * Every page of a paged read, in order, for the v1 reads, which have no paging: a v1 client could
 * not send the token, so stopping at the first page would drop the rest unseen. `read` answers
 * the page that `pageToken` opens (the first when undefined) and the next page's token.
 */
export async function everyPage<T>(read: (pageToken: string | undefined) => Promise<{ items: T[]; next?: string }>, first?: string): Promise<T[]> {
  const items: T[] = [];
  let pageToken = first;
  do {
    const page = await read(pageToken);
    items.push(...page.items);
    pageToken = page.next;
  } while (pageToken);
  return items;
}

function bindingOf(owner: string, operation: string, filters: unknown): string {
  const filterHash = createHash('sha256').update(canonicalJson(filters)).digest('base64url');
  return `${owner}\n${operation}\n${filterHash}`;
}

/** JSON with object keys sorted and `undefined` dropped, so equal filters hash equally. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** `pageSize` of a paged read: 1..max, default 1000 (contract 1.5). */
export function PageSizeField(max: number = PAGE_SIZE.max): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: PAGE_SIZE.min, maximum: max, description: `Default: ${Math.min(PAGE_SIZE.default, max)}.` }),
    IsOptionalInteger(PAGE_SIZE.min, max),
  );
}

/** `pageToken` of a paged read: the opaque token a previous page returned. */
export function PageTokenField(): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ description: 'Token from the previous page.' }), IsOptionalText(4000));
}
