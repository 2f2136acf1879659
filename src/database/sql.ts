import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { EmbeddedReads } from './embedded-reads.js';
import { allRows, type EmbeddedStatement, iterateRows, packedText } from './embedded-rows.js';
import { MAX_KEPT_LIST_ITEMS, StatementCache } from './statement-cache.js';
import { lazyUnits, type LazyUnit } from './lazy-units.js';
import { inUnitOfWork, unitManager } from './unit-of-work.js';

type Scalar = string | number | boolean | null | Uint8Array;

/**
 * PostgreSQL's prepared statements (see `Sql.postgres`): at most this many texts get a name, each
 * kept by every connection that runs it; and only statements whose lists bind at most
 * `MAX_PREPARED_LIST_ITEMS` values together, or multi-row inserts of at most `MAX_PREPARED_ROWS`
 * rows, make such texts (a list's length, or a batch's, is part of the text).
 */
export const MAX_PREPARED_STATEMENTS = 500;
export const MAX_PREPARED_LIST_ITEMS = 16;
const MAX_PREPARED_ROWS = 16;
/** PostgreSQL: at most this many values bound by one insert statement (its limit is 65,535). */
const MAX_STATEMENT_VALUES = 10_000;
export type Parameters = Record<string, Scalar | readonly Scalar[]>;

/** The running sums `rowsWithinBytes` adds to each row. */
interface SizedRow {
  page_bytes_before: number | string;
  page_bytes_before_previous: number | string;
  page_position: number | string;
}

/** Rows for one table of `Sql.insertAll` (as `Sql.insert` takes them). */
export interface Insert {
  table: string;
  columns: readonly string[];
  rows: readonly (readonly Scalar[])[];
  /** Upsert on these columns' conflict, setting `update` from the row sent. */
  conflict?: { target: readonly string[]; update: readonly string[] };
}

/** A column of `Sql.updateRows`, with its PostgreSQL type. */
export interface Column {
  name: string;
  type: 'varchar' | 'text' | 'int' | 'bigint';
}

interface PreparedText {
  text: string;
  /** Whether it is kept for the next statement of the same text and list lengths (short lists only). */
  kept: boolean;
  /** Whether PostgreSQL may run it as a named prepared statement: kept, and binding few list items (see `MAX_PREPARED_LIST_ITEMS`). */
  preparable: boolean;
  /** The parameters' names, as they were listed when it was translated (the same for every statement of its key). */
  names: string[];
  /**
   * Two numbers per placeholder, in order: the parameter (its place in `names`) and the list
   * item (-1 for a scalar). Packed, a kept translation costs 8 bytes per placeholder.
   */
  slots: Int32Array;
}

/** What `Sql` uses of node-postgres's client and pool: a statement, named or not, and its rows. */
interface PostgresQueryable {
  query(query: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** The embedded driver's own connection (better-sqlite3), the one TypeORM uses. */
export interface EmbeddedConnection {
  prepare(text: string): EmbeddedStatement;
  pragma(sql: string): unknown;
  /** Whether a transaction is open on it. */
  readonly inTransaction: boolean;
}

/** The embedded database's connection, or `undefined` on PostgreSQL. */
export function embeddedConnection(dataSource: DataSource): EmbeddedConnection | undefined {
  return dataSource.options.type === 'better-sqlite3'
    ? (dataSource.driver as unknown as { databaseConnection: EmbeddedConnection }).databaseConnection
    : undefined;
}

/**
 * Plain SQL for the hottest reads (credential lookups, simple lists), where building a query
 * through TypeORM's query builder costs more than running it. `:name` parameters (scalars) are
 * turned into the driver's placeholders by TypeORM itself, once per statement text, so the SQL
 * stays dialect-neutral.
 *
 * How a read runs is the one choice made by dialect here: on the embedded database it runs as a
 * cached prepared statement on the driver's own connection (the same connection TypeORM uses,
 * so it sees the same data), skipping TypeORM's per-query bookkeeping, which costs several
 * times the lookup itself; on PostgreSQL it runs on the client of TypeORM's pool (or of the
 * unit of work), as a named prepared statement when its text is one of a bounded set.
 */
@Injectable()
export class Sql implements OnApplicationShutdown {
  /** Translations by statement text (and list lengths, for statements with lists; see `prepare`). */
  private readonly prepared = new StatementCache<PreparedText>(1000);
  /** Embedded: statements prepared on the driver's connection, by translated text. */
  private readonly statements = new StatementCache<EmbeddedStatement>(500);
  /** Embedded: each kept read's packed form (`packedText`), null where it has none; it goes with the statement. */
  private readonly packedStatements = new WeakMap<EmbeddedStatement, EmbeddedStatement | null>();
  /** PostgreSQL: the names of prepared statements, by text (see `postgres`). */
  private readonly statementNames = new Map<string, string>();
  /** PostgreSQL: the end of the last statement sent on a unit's connection (see `inTurn`). */
  private readonly lastOnConnection = new WeakMap<PostgresQueryable, Promise<void>>();
  private readonly embedded: EmbeddedConnection | undefined;
  /** Committed reads outside units of work (see `EmbeddedReads`); undefined on PostgreSQL and in memory. */
  private readonly reads: EmbeddedReads | undefined;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.embedded = embeddedConnection(dataSource);
    this.reads = this.embedded && EmbeddedReads.attach(dataSource, this.embedded);
  }

  /**
   * Rows of a read, as committed (inside a unit of work: as that unit sees them, on its
   * connection). Scalar parameters are `:name`, lists `:...name`. The translation to the
   * driver's placeholders is kept per statement text and list lengths, for lists of up to
   * `MAX_KEPT_LIST_ITEMS` items together (longer ones are translated each time).
   */
  async rows<T>(sql: string, parameters: Parameters): Promise<T[]> {
    const { text, values, kept, prepared } = this.bind(sql, parameters);
    if (this.embedded) {
      const onReader = this.reads !== undefined && !inUnitOfWork();
      const statement = onReader ? this.logged(text, values, this.reads!.prepared<EmbeddedStatement>(text, kept)) : this.cached(text, values, kept);
      return this.embeddedRows<T>(statement, text, values, kept, onReader);
    }
    // Inside a unit of work, on its own connection: a second one from the pool, asked for while
    // the unit holds the first, could wait forever once concurrent units hold them all.
    return this.postgres<T>(unitManager()?.queryRunner, text, values, prepared);
  }

  /**
   * Up to `limit` rows of a page query, in `orderBy` order, while the sizes (`size`, an SQL
   * expression, e.g. `LENGTH(body)`) of the rows before stay under `maxBytes` (the first row
   * always comes): a page of large records ends early, and `cut` says rows were left out for
   * their size. A page never loads more than `maxBytes` and one record, however large the
   * records or `limit`:
   * - the embedded driver steps through the rows one at a time, and the stepping stops at the
   *   first row past the budget, so nothing after it is read;
   * - PostgreSQL sends a result whole, so there the database sums the sizes (a running sum) and
   *   sends only the rows that fit, plus the first that does not (stripped here), which tells
   *   that more follow. The sums cost about 2 ms on a page of 1,000 small rows; SQLite's
   *   window functions cost three times its plain read, hence the stepping.
   * The rows keep the columns the sizes add (`page_…`); callers read the columns they name.
   */
  async rowsWithinBytes<T>(query: {
    /** The columns, without `SELECT`. */
    select: string;
    /** `FROM` (with joins) and `WHERE`, without `FROM`. */
    from: string;
    orderBy: string;
    size: string;
    parameters: Parameters;
    limit: number;
    maxBytes: number;
  }): Promise<{ rows: T[]; cut: boolean }> {
    const { select, from, orderBy, size, parameters, limit, maxBytes } = query;
    if (this.embedded) {
      const { text, values, kept } = this.bind(`SELECT ${select}, ${size} AS page_row_bytes FROM ${from} ORDER BY ${orderBy} LIMIT :pageLimit`, {
        ...parameters,
        pageLimit: limit,
      });
      const statement =
        this.reads && !inUnitOfWork() ? this.logged(text, values, this.reads.prepared<EmbeddedStatement>(text, kept)) : this.cached(text, values, kept);
      const rows: T[] = [];
      let before = 0;
      // Leaving the loop early ends the statement's stepping (the iterator's return).
      for (const row of iterateRows<T & { page_row_bytes: number }>(statement, values)) {
        if (rows.length && before >= maxBytes) return { rows, cut: true };
        before += row.page_row_bytes;
        rows.push(row);
      }
      return { rows, cut: false };
    }
    const running = (upTo: number) => `COALESCE(SUM(${size}) OVER (ORDER BY ${orderBy} ROWS BETWEEN UNBOUNDED PRECEDING AND ${upTo} PRECEDING), 0)`;
    const found = await this.rows<T & SizedRow>(
      `SELECT * FROM (
        SELECT ${select}, ${running(1)} AS page_bytes_before, ${running(2)} AS page_bytes_before_previous, ROW_NUMBER() OVER (ORDER BY ${orderBy}) AS page_position
        FROM ${from} ORDER BY ${orderBy} LIMIT :pageLimit
      ) page WHERE page_bytes_before_previous < :pageMaxBytes ORDER BY page_position`,
      { ...parameters, pageLimit: limit, pageMaxBytes: maxBytes },
    );
    const cut = found.length > 1 && Number(found[found.length - 1]!.page_bytes_before) >= maxBytes;
    return { rows: cut ? found.slice(0, -1) : found, cut };
  }

  /**
   * Up to `limit` rows of `select` (a SELECT ending in its WHERE conditions), ordered by `keys`
   * and, when `after` (their values) is given, after it: one keyset page.
   */
  rowsAfter<T>(select: string, keys: readonly string[], parameters: Parameters, after: readonly (string | number)[] | undefined, limit: number): Promise<T[]> {
    const tuple = `(${keys.join(', ')})`;
    const afterParameters = Object.fromEntries((after ?? []).map((value, i) => [`after${i}`, value]));
    const condition = after ? ` AND ${tuple} > (${keys.map((_, i) => `:after${i}`).join(', ')})` : '';
    return this.rows<T>(`${select}${condition} ORDER BY ${keys.join(', ')} LIMIT :limit`, { ...parameters, ...afterParameters, limit });
  }

  onApplicationShutdown(): void {
    this.reads?.close();
  }

  /**
   * A write (or any statement) inside a unit of work of `Transactions.run`, in the same
   * `:name` / `:...list` form; returns the rows of a `RETURNING` clause, else none. On the
   * embedded database the unit holds the one connection, so the cached statement runs inside it.
   */
  async run<T = never>(manager: EntityManager, sql: string, parameters: Parameters): Promise<T[]> {
    const { text, values, kept, prepared } = this.bind(sql, parameters);
    if (this.embedded) {
      const statement = this.cached(text, values, kept);
      if (statement.reader) return allRows<T>(statement, values);
      statement.run(...values);
      return [];
    }
    return this.postgres<T>(manager.queryRunner, text, values, prepared);
  }

  /**
   * Rows read to be changed in this unit of work, locked until it ends, so concurrent writers of
   * the same rows take turns (PostgreSQL `FOR UPDATE`; the embedded database runs one unit at a
   * time anyway). `keysKept`: the row's key will not change, so rows referring to it may still be
   * inserted meanwhile (`FOR NO KEY UPDATE`, which foreign-key checks do not wait for).
   * `readOnly`: the rows are only relied on, not changed: they cannot be deleted (or their key
   * changed) until the unit ends, while other units may still update or rely on them (`FOR KEY SHARE`).
   */
  async lockRows<T>(manager: EntityManager, sql: string, parameters: Parameters, options: { keysKept?: boolean; readOnly?: boolean } = {}): Promise<T[]> {
    const clause = options.readOnly ? 'FOR KEY SHARE' : options.keysKept ? 'FOR NO KEY UPDATE' : 'FOR UPDATE';
    return this.run<T>(manager, this.embedded ? sql : `${sql} ${clause}`, parameters);
  }

  /**
   * A subquery selecting rows a worker takes for itself: on PostgreSQL they are locked, skipping
   * rows another worker holds (`FOR UPDATE SKIP LOCKED`), so workers sharing the database never
   * take the same row; the embedded database has one worker, and one unit of work at a time.
   */
  claimable(select: string): string {
    return this.embedded ? select : `${select} FOR UPDATE SKIP LOCKED`;
  }

  /**
   * Updates many rows, each with values of its own, where every `match` column equals the row's
   * value; returns the first match column of the rows updated. PostgreSQL: one statement over
   * `unnest` of typed arrays (one round trip for the batch); embedded: a cached statement per row.
   * Column types are PostgreSQL's (`varchar`, `int`, `bigint`, `text`). With `andInsert`, its
   * rows whose first column is the key of a row updated are inserted too (records of what was
   * updated, say), in the same statement on PostgreSQL.
   */
  async updateRows(
    manager: EntityManager,
    table: string,
    columns: { match: readonly Column[]; set: readonly Column[] },
    rows: readonly (readonly Scalar[])[],
    andInsert?: { table: string; columns: readonly Column[]; rows: readonly (readonly Scalar[])[] },
  ): Promise<Scalar[]> {
    if (!rows.length) return [];
    const all = [...columns.match, ...columns.set];
    const key = columns.match[0]!.name;
    if (this.embedded) {
      const text = `UPDATE ${table} SET ${columns.set.map((c) => `${c.name} = ?`).join(', ')} WHERE ${columns.match.map((c) => `${c.name} = ?`).join(' AND ')} RETURNING ${key}`;
      const statement = this.cached(text, [`${rows.length} rows`]);
      const updated: Scalar[] = [];
      for (const row of rows) {
        const values = row.map(toDriverValue);
        const set = values.slice(columns.match.length);
        const match = values.slice(0, columns.match.length);
        const [hit] = statement.all(...set, ...match) as Record<string, Scalar>[];
        if (hit) updated.push(hit[key]!);
      }
      if (andInsert) {
        const keys = new Set(updated);
        const names = andInsert.columns.map((c) => c.name);
        await this.insert(
          manager,
          andInsert.table,
          names,
          andInsert.rows.filter((row) => keys.has(row[0]!)),
        );
      }
      return updated;
    }
    // Columns are named by position, so one may be both matched and set (a guard it clears).
    const unnest = (of: readonly Column[], from: number) => of.map((c, i) => `$${from + i + 1}::${c.type}[]`).join(', ');
    const set = columns.set.map((c, i) => `${c.name} = r.c${columns.match.length + i}`).join(', ');
    const where = columns.match.map((c, i) => `t.${c.name} = r.c${i}`).join(' AND ');
    const update = `UPDATE ${table} AS t SET ${set} FROM unnest(${unnest(all, 0)}) AS r(${all.map((_, i) => `c${i}`).join(', ')}) WHERE ${where} RETURNING t.${key}`;
    const arrays = (of: readonly Column[], values: readonly (readonly Scalar[])[]) => of.map((_, i) => values.map((row) => row[i] ?? null));
    let text = update;
    let values = arrays(all, rows);
    if (andInsert?.rows.length) {
      const { columns: inserted } = andInsert;
      const names = inserted.map((_, i) => `a${i}`);
      text = `WITH updated AS (${update}), inserted AS (INSERT INTO ${andInsert.table} (${inserted.map((c) => c.name).join(', ')})
        SELECT ${names.join(', ')} FROM unnest(${unnest(inserted, all.length)}) AS a(${names.join(', ')}) WHERE a0 IN (SELECT ${key} FROM updated))
        SELECT ${key} FROM updated`;
      values = [...values, ...arrays(inserted, andInsert.rows)];
    }
    // The text does not depend on the number of rows: one prepared statement serves every batch.
    const records = await this.postgres<Record<string, Scalar>>(manager.queryRunner, text, values, true);
    return records.map((record) => record[key]!);
  }

  /**
   * Inserts rows (each a list of values in `columns` order), optionally upserting on `conflict`.
   * Embedded: one cached single-row statement run per row, which in-process costs microseconds
   * and keeps one statement text whatever the batch size. PostgreSQL: multi-row statements, so
   * a batch is a few round trips.
   */
  async insert(
    manager: EntityManager,
    table: string,
    columns: readonly string[],
    rows: readonly (readonly Scalar[])[],
    conflict?: { target: readonly string[]; update: readonly string[] },
  ): Promise<void> {
    if (!rows.length) return;
    if (this.embedded) {
      const statement = this.cached(
        insertText({ table, columns, conflict }, 1, 0, () => '?'),
        [`${rows.length} rows`],
      );
      for (const row of rows) statement.run(...row.map(toDriverValue));
      return;
    }
    const lazy = this.deferring(manager);
    if (lazy) return lazy.defer([{ table, columns, rows, ...(conflict ? { conflict } : {}) }], this.writeDeferred);
    const perStatement = Math.floor(MAX_STATEMENT_VALUES / columns.length);
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      await this.postgres(manager.queryRunner, insertText({ table, columns, conflict }, chunk.length, 0), chunk.flat(), chunk.length <= MAX_PREPARED_ROWS);
    }
  }

  /**
   * Inserts into several tables at once, in the order given (`insert`'s form for each), all or
   * none. On PostgreSQL one statement carries them all (each but the last a data-modifying `WITH`
   * clause): one round trip instead of one per table, and atomic by itself, so a unit of work made
   * of it alone needs no transaction (`Transactions.run`'s `atomic: false`). Foreign keys between
   * them hold, as PostgreSQL checks them at the statement's end. A batch too big for one statement
   * takes `insert` once per table, in a transaction of its own when the caller has none; the
   * embedded database (no round trips) always does, inside its unit of work.
   */
  async insertAll(manager: EntityManager, inserts: readonly Insert[]): Promise<void> {
    const writes = inserts.filter((write) => write.rows.length);
    const lazy = this.embedded ? undefined : this.deferring(manager);
    if (lazy) return lazy.defer(writes, this.writeDeferred);
    const values = writes.reduce((sum, write) => sum + write.rows.length * write.columns.length, 0);
    if (this.embedded || writes.length < 2 || values > MAX_STATEMENT_VALUES) {
      const each = async (on: EntityManager) => {
        for (const write of writes) await this.insert(on, write.table, write.columns, write.rows, write.conflict);
      };
      // Several statements (the batch passed one statement's values) need a transaction to be all or none.
      const alone = !this.embedded && values > MAX_STATEMENT_VALUES && !manager.queryRunner?.isTransactionActive;
      return alone ? manager.transaction(each) : each(manager);
    }
    let placed = 0;
    const texts = writes.map((write) => {
      const text = insertText(write, write.rows.length, placed);
      placed += write.rows.length * write.columns.length;
      return text;
    });
    const text = `WITH ${texts
      .slice(0, -1)
      .map((part, i) => `write_${i} AS (${part})`)
      .join(', ')} ${texts[texts.length - 1]}`;
    const preparable = writes.every((write) => write.rows.length <= MAX_PREPARED_ROWS);
    await this.postgres(
      manager.queryRunner,
      text,
      writes.flatMap((write) => write.rows.flat()),
      preparable,
    );
  }

  /**
   * Inserts the rows that do not conflict on `target` (`ON CONFLICT DO NOTHING`) and returns the
   * `returned` column of those inserted, so a caller learns which of its rows were new. With
   * `children`, its rows whose `link` column holds the `returned` value of a row inserted here are
   * inserted too (an event's deliveries, of the events that were new): on PostgreSQL in the same
   * statement, one round trip instead of two (column types as `updateRows` takes them).
   */
  async insertNew(
    manager: EntityManager,
    table: string,
    columns: readonly string[],
    rows: readonly (readonly Scalar[])[],
    target: readonly string[],
    returned: string,
    children?: { table: string; columns: readonly Column[]; rows: readonly (readonly Scalar[])[]; link: string },
  ): Promise<Scalar[]> {
    if (!rows.length) return [];
    const tail = ` ON CONFLICT (${target.join(', ')}) DO NOTHING RETURNING ${returned}`;
    const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
    const perStatement = Math.floor(MAX_STATEMENT_VALUES / columns.length);
    if (this.embedded || (children?.rows.length && rows.length > perStatement)) {
      const inserted = this.embedded
        ? this.insertNewEmbedded(`${head}(${columns.map(() => '?').join(', ')})${tail}`, rows, returned)
        : await this.insertNew(manager, table, columns, rows, target, returned);
      if (children?.rows.length) {
        const fresh = new Set(inserted);
        const at = children.columns.findIndex((column) => column.name === children.link);
        const names = children.columns.map((column) => column.name);
        await this.insert(
          manager,
          children.table,
          names,
          children.rows.filter((row) => fresh.has(row[at]!)),
        );
      }
      return inserted;
    }
    const inserted: Scalar[] = [];
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      const tuples = chunk.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
      let text = `${head}${tuples.join(', ')}${tail}`;
      let values: unknown[] = chunk.flat();
      if (children?.rows.length) {
        // One chunk here (see above): the children's arrays follow its values.
        const names = children.columns.map((_, i) => `a${i}`);
        const link = names[children.columns.findIndex((column) => column.name === children.link)]!;
        const arrays = children.columns.map((column, i) => `$${values.length + i + 1}::${column.type}[]`).join(', ');
        text = `WITH inserted AS (${text}), children AS (INSERT INTO ${children.table} (${children.columns.map((c) => c.name).join(', ')})
          SELECT ${names.join(', ')} FROM unnest(${arrays}) AS a(${names.join(', ')}) WHERE ${link} IN (SELECT ${returned} FROM inserted))
          SELECT ${returned} FROM inserted`;
        values = [...values, ...children.columns.map((_, i) => children.rows.map((row) => row[i] ?? null))];
      }
      const records = await this.postgres<Record<string, Scalar>>(manager.queryRunner, text, values, chunk.length <= MAX_PREPARED_ROWS);
      inserted.push(...records.map((record) => record[returned]!));
    }
    return inserted;
  }

  /** The lazy unit of work (see `LazyUnit`) whose inserts wait, when `manager` is one's and this insert is not its own writing of them. */
  private deferring(manager: EntityManager): LazyUnit | undefined {
    const lazy = manager.queryRunner && lazyUnits.get(manager.queryRunner);
    return lazy?.takes() ? lazy : undefined;
  }

  /** Writes a lazy unit's inserts that waited, together (`insertAll`). */
  private readonly writeDeferred = (runner: QueryRunner, inserts: Insert[]): Promise<void> => this.insertAll(runner.manager, inserts);

  /** `insertNew` on the embedded database: one cached single-row statement run per row. */
  private insertNewEmbedded(text: string, rows: readonly (readonly Scalar[])[], returned: string): Scalar[] {
    const statement = this.cached(text, [`${rows.length} rows`]);
    return rows.flatMap((row) => (statement.all(...row.map(toDriverValue)) as Record<string, Scalar>[]).map((record) => record[returned]!));
  }

  /**
   * A statement on PostgreSQL, on `runner`'s connection (a unit of work's), else on any of the
   * pool's; reported to the query logger as TypeORM reports its own. A `prepared` statement goes
   * by a name of its text, so each connection parses and plans it once and later only binds and
   * runs it (sent unnamed, a credential lookup's join ran at half the rate here). Only short
   * lists make prepared texts (a list gives one text per length), and only the first
   * `MAX_PREPARED_STATEMENTS` texts get a name, so what each connection keeps is bounded.
   */
  private async postgres<T>(runner: QueryRunner | undefined, text: string, values: unknown[], prepared: boolean): Promise<T[]> {
    const lazy = runner && lazyUnits.get(runner);
    if (lazy) await lazy.before(text);
    this.dataSource.logger.logQuery(text, values, runner);
    const name = prepared ? this.statementName(text) : undefined;
    const query = name ? { name, text, values } : { text, values };
    if (!runner) {
      const pool = (this.dataSource.driver as unknown as { master: PostgresQueryable }).master;
      return (await pool.query(query)).rows as T[];
    }
    const client = (await runner.connect()) as PostgresQueryable;
    const { rows } = await this.inTurn(client, () => client.query(query));
    return rows as T[];
  }

  /**
   * Runs `statement` on `client` once the statements sent there before it have ended. A
   * connection runs one statement at a time; reads a unit of work makes together (a
   * `Promise.all` on its connection) used to be queued by node-postgres itself, which deprecates
   * that ("Calling client.query() when the client is already executing a query", gone in pg 9),
   * so they take their turn here. Statements on the pool need none: each takes a free client.
   */
  private inTurn<T>(client: PostgresQueryable, statement: () => Promise<T>): Promise<T> {
    const previous = this.lastOnConnection.get(client);
    const result = previous ? previous.then(statement) : statement();
    const ended = result.then(
      () => undefined,
      () => undefined,
    );
    this.lastOnConnection.set(client, ended);
    void ended.then(() => {
      if (this.lastOnConnection.get(client) === ended) this.lastOnConnection.delete(client);
    });
    return result;
  }

  /** The name of a prepared statement of PostgreSQL: one per text, the same on every connection (none once the names run out). */
  private statementName(text: string): string | undefined {
    let name = this.statementNames.get(text);
    if (name === undefined && this.statementNames.size < MAX_PREPARED_STATEMENTS) this.statementNames.set(text, (name = `sql_${this.statementNames.size + 1}`));
    return name;
  }

  private bind(sql: string, parameters: Parameters): { text: string; values: (string | number | null | Buffer)[]; kept: boolean; prepared: boolean } {
    const { text, names, slots, kept, preparable } = this.prepare(sql, parameters);
    const values: (string | number | null | Buffer)[] = new Array(slots.length / 2);
    for (let i = 0; i < values.length; i++) {
      const value = parameters[names[slots[2 * i]!]!]!;
      const item = slots[2 * i + 1]!;
      values[i] = toDriverValue(item < 0 ? (value as Scalar) : (value as readonly Scalar[])[item]!);
    }
    return { text, values, kept, prepared: preparable };
  }

  /** A statement of the committed-reads connection, its query logged as `cached` logs its own. */
  private logged(text: string, values: unknown[], statement: EmbeddedStatement): EmbeddedStatement {
    this.dataSource.logger.logQuery(text, values);
    return statement;
  }

  /**
   * A kept statement's rows, read in one value through its packed form (`packedText`) where it
   * has one, prepared once on the statement's own connection (the reader's, or the driver's);
   * other statements' rows as the driver gives them (preparing two statements for each read would
   * cost more).
   */
  private embeddedRows<T>(statement: EmbeddedStatement, text: string, values: unknown[], kept: boolean, onReader: boolean): T[] {
    if (!kept) return allRows<T>(statement, values);
    let packed = this.packedStatements.get(statement);
    if (packed === undefined) {
      packed = null;
      const packedSql = packedText(statement, text);
      try {
        if (packedSql !== undefined)
          packed = (onReader ? this.reads!.prepared<EmbeddedStatement>(packedSql, false) : this.embedded!.prepare(packedSql)).pluck(true);
      } catch {
        // A text that cannot be a subquery (a trailing comment, say): its rows come as they are.
      }
      this.packedStatements.set(statement, packed);
    }
    return allRows<T>(statement, values, packed ?? undefined);
  }

  /**
   * The embedded statement of `text`, kept for the next time unless `keep` is false (a statement
   * with long lists); reported like TypeORM's own so query logging sees it.
   */
  private cached(text: string, values: unknown[], keep = true): EmbeddedStatement {
    this.dataSource.logger.logQuery(text, values);
    return keep ? this.statements.get(text, () => this.embedded!.prepare(text)) : this.embedded!.prepare(text);
  }

  private prepare(sql: string, parameters: Parameters): PreparedText {
    const names = Object.keys(parameters);
    let listItems = 0;
    let lists = false;
    for (const name of names) {
      const value = parameters[name];
      if (Array.isArray(value)) {
        lists = true;
        listItems += value.length;
      }
    }
    if (!lists) {
      // Scalars only, the common case: kept by the text alone (usually a constant, whose hash
      // the engine keeps; no list shape to spell out and hash with it), checked against the
      // parameters' names, in order, as they come. Keys with a shape hold a \u0000: no clash.
      const plain = this.prepared.get(sql, () => this.translate(sql, parameters, names, true));
      if (sameNames(plain.names, names)) return plain;
    }
    if (listItems > MAX_KEPT_LIST_ITEMS) return this.translate(sql, parameters, names, false);
    const shape = names.map((name) => (Array.isArray(parameters[name]) ? `${name}[${(parameters[name] as unknown[]).length}]` : name)).join(',');
    return this.prepared.get(`${sql}\u0000${shape}`, () => this.translate(sql, parameters, names, true));
  }

  /** `sql` in the driver's placeholders, and which parameter (list item) goes to each. */
  private translate(sql: string, parameters: Parameters, names: string[], kept: boolean): PreparedText {
    // Each value (each list element) is replaced by a marker string naming it (the parameter's
    // place, and the item's); strings always become placeholders (some drivers inline numbers),
    // so the driver's output gives the order.
    const markers = Object.fromEntries(
      names.map((name, n) => {
        const value = parameters[name];
        return [name, Array.isArray(value) ? value.map((_, i) => `\u0000${n}\u0000${i}`) : `\u0000${n}`];
      }),
    );
    const [text, placed] = this.dataSource.driver.escapeQueryWithParameters(sql, markers);
    const slots = new Int32Array((placed as string[]).length * 2);
    let listItems = 0;
    (placed as string[]).forEach((marker, i) => {
      const [, n, item] = marker.split('\u0000');
      slots[2 * i] = Number(n);
      slots[2 * i + 1] = item === undefined ? -1 : Number(item);
      if (item !== undefined) listItems++;
    });
    return { text, kept, preparable: kept && listItems <= MAX_PREPARED_LIST_ITEMS, names, slots };
  }
}

/** An insert of `rows` rows into `write.table`; its placeholders PostgreSQL's (`$n`), numbered after the `placed` values before it, unless `placeholder` says otherwise. */
function insertText(write: Omit<Insert, 'rows'>, rows: number, placed: number, placeholder = (n: number) => `$${n}`): string {
  const { table, columns, conflict } = write;
  const tuples = Array.from({ length: rows }, (_, r) => `(${columns.map((_, c) => placeholder(placed + r * columns.length + c + 1)).join(', ')})`);
  const onConflict = conflict
    ? ` ON CONFLICT (${conflict.target.join(', ')}) DO UPDATE SET ${conflict.update.map((c) => `${c} = excluded.${c}`).join(', ')}`
    : '';
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}${onConflict}`;
}

/** Whether a kept translation was made for these parameter names, in this order. */
function sameNames(kept: readonly string[], names: readonly string[]): boolean {
  if (kept.length !== names.length) return false;
  for (let i = 0; i < names.length; i++) if (kept[i] !== names[i]) return false;
  return true;
}

/** better-sqlite3 binds no booleans, and binary only as a Buffer. */
function toDriverValue(value: Scalar): string | number | null | Buffer {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

/**
 * The conditions of a WHERE clause, joined by AND, with their parameters: the filters a caller may
 * or may not have sent. An absent value adds nothing; an empty list matches nothing. A column's
 * parameter is named after it (`j.document_id` → `:j_document_id`).
 */
export class Conditions {
  readonly parameters: Parameters = {};
  private readonly parts: string[] = [];

  /** `column = value`, unless the value is absent. */
  equal(column: string, value: string | number | undefined): this {
    if (value === undefined) return this;
    const name = this.name(column);
    this.parameters[name] = value;
    return this.add(`${column} = :${name}`);
  }

  /** `column IN (values)`, unless the list is absent. */
  among(column: string, values: readonly string[] | undefined): this {
    if (values === undefined) return this;
    const name = this.name(column);
    // No id is '', so an empty list matches nothing (`IN ()` is not SQL).
    this.parameters[name] = values.length ? values : [''];
    return this.add(`${column} IN (:...${name})`);
  }

  /** Any other condition, with its own parameters. */
  add(condition: string, parameters: Parameters = {}): this {
    this.parts.push(condition);
    Object.assign(this.parameters, parameters);
    return this;
  }

  toString(): string {
    return this.parts.join(' AND ');
  }

  private name(column: string): string {
    const name = column.replace(/\W/g, '_');
    if (name in this.parameters) throw new Error(`Conditions: ${column} is filtered twice`);
    return name;
  }
}

/**
 * An ORDER BY term for a numeric column that no index can give (`column + 0`), for a page of rows
 * listed by key (as many rows as ids at most): the planner then looks each id up through the
 * primary key and sorts the few rows found. Ordered by the plain column, SQLite (which keeps no
 * statistics here) walked the whole organization in page order instead, testing every row
 * against the list: 7.6–8.5 ms for ten ids at 100k rows, 0.04 ms this way.
 */
export function sortedOnceRead(numericColumn: string): string {
  return `${numericColumn} + 0`;
}

/** The most values `pageOfEach` reads one by one; a longer list stays one filter (`IN`). */
const MAX_VALUES_READ_APART = 16;

/**
 * The list's values, each once, when a page should read them one by one (`pageOfEach`): two to
 * `MAX_VALUES_READ_APART` of them. Undefined otherwise: no list, one value (an equality the index
 * serves as it is), or a longer list, which stays one filter.
 */
export function valuesReadApart(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const distinct = [...new Set(values)];
  return distinct.length > 1 && distinct.length <= MAX_VALUES_READ_APART ? distinct : undefined;
}

/**
 * The `FROM` of a page filtered on a list of values of one column (documents, action types),
 * read one value at a time: each value's first `limit` rows in the page's order (an index on the
 * column then the order gives them at once), merged. As one filter (`column IN (...)`), SQLite,
 * which keeps no statistics here, walked every row of the organization in page order testing
 * each against the list (31–58 ms at 100k rows for values of a few), and sorting every row of
 * the values is no answer either: one value may hold most of the rows. This way a page reads at
 * most its size per value. `where` holds the other conditions; the values are distinct
 * (`valuesReadApart`: a value listed twice would give its rows twice).
 */
export function pageOfEach(query: {
  columns: string;
  table: string;
  where: Conditions;
  column: string;
  values: readonly string[];
  orderBy: string;
  limit: number;
}): { from: string; parameters: Parameters } {
  const { columns, table, where, column, values, orderBy, limit } = query;
  const each = values.map(
    (_, i) => `SELECT * FROM (SELECT ${columns} FROM ${table} WHERE ${where} AND ${column} = :eachValue${i} ORDER BY ${orderBy} LIMIT :eachLimit) each${i}`,
  );
  return {
    from: `(${each.join(' UNION ALL ')}) page_of_each`,
    parameters: { ...where.parameters, ...Object.fromEntries(values.map((value, i) => [`eachValue${i}`, value])), eachLimit: limit },
  };
}

/**
 * A condition matching rows whose JSON text in `column` holds one of the users' ids as a string:
 * the cheap pre-filter the database applies before the exact test in code (privacy's
 * `namesUser`, `withoutUsers`). JSON text is what the caller sent re-serialised, so an id appears
 * exactly as `JSON.stringify` writes it. `\` escapes LIKE's wildcards on both engines. Parameters
 * are named after the column, so one statement may filter several columns.
 */
export function namingFilter(column: string, userIds: readonly string[]): { sql: string; parameters: Parameters } {
  const parameters: Parameters = {};
  const prefix = `${column.replace(/\W/g, '_')}_names`;
  const parts = userIds.map((userId, i) => {
    parameters[`${prefix}${i}`] = `%${JSON.stringify(userId).replace(/[\\%_]/g, '\\$&')}%`;
    return `${column} LIKE :${prefix}${i} ESCAPE '\\'`;
  });
  return { sql: `(${parts.join(' OR ')})`, parameters };
}
