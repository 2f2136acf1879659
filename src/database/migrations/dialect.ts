import type { QueryRunner } from 'typeorm';

/**
 * The words of a migration's SQL that the two engines spell differently; everything else is
 * written once. A step whose SQL differs in more than words (full-text search) says so with an
 * explicit `if (d.postgres)` block instead of growing this list.
 */
export interface Dialect {
  readonly postgres: boolean;
  /** Epoch milliseconds: 64-bit integers, which SQLite's `integer` already is. */
  readonly bigint: 'bigint' | 'integer';
  /** Binary values (encoded Yjs state). */
  readonly bytes: 'bytea' | 'blob';
  /**
   * Text that is compared byte-wise (materialised paths read as ranges): PostgreSQL would
   * otherwise compare by the database's locale; SQLite's default collation is byte-wise.
   */
  readonly bytewiseText: 'text COLLATE "C"' | 'text';
  /** The placeholder of the n-th (1-based) query parameter. */
  param(n: number): string;
}

const POSTGRES: Dialect = { postgres: true, bigint: 'bigint', bytes: 'bytea', bytewiseText: 'text COLLATE "C"', param: (n) => `$${n}` };
const SQLITE: Dialect = { postgres: false, bigint: 'integer', bytes: 'blob', bytewiseText: 'text', param: () => '?' };

/** The dialect of the database a migration runs on. */
export function dialectOf(db: QueryRunner): Dialect {
  return db.connection.options.type === 'postgres' ? POSTGRES : SQLITE;
}
