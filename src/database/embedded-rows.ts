/** A synchronous prepared statement of the embedded driver (better-sqlite3). */
export interface EmbeddedStatement {
  readonly reader: boolean;
  all(...values: unknown[]): unknown[];
  iterate(...values: unknown[]): IterableIterator<unknown>;
  run(...values: unknown[]): { changes: number };
  /** Whether its rows come as arrays (in column order) instead of objects. */
  raw(toggle: boolean): this;
  columns(): { name: string }[];
}

type RowBuilder = (values: unknown[]) => Record<string, unknown>;

/** Builders by statement, and by column list: a statement with long lists is prepared anew for each read (`Sql`), and its columns' builder is made once. */
const byStatement = new WeakMap<EmbeddedStatement, RowBuilder>();
const byColumns = new Map<string, RowBuilder>();

/**
 * The function making a statement's row object from its values: one object literal of its
 * columns, so every row of the statement has the same shape (a later column of a name wins, as
 * in the driver's own objects). Names are the statement's own, written as JSON strings. The
 * column lists are those of the service's own statements: a set as fixed as their texts.
 */
function builderOf(statement: EmbeddedStatement): RowBuilder {
  let build = byStatement.get(statement);
  if (!build) {
    const names = statement.columns().map((column) => column.name);
    const key = names.join('\u0000');
    build = byColumns.get(key);
    if (!build) {
      const fields = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`);
      // The text is the statement's column names, JSON-quoted.
      build = new Function('values', `return { ${fields.join(', ')} };`) as RowBuilder;
      byColumns.set(key, build);
    }
    byStatement.set(statement, build);
  }
  return build;
}

/**
 * A statement's rows as objects, read from the driver as arrays and built here. better-sqlite3
 * makes each row object through V8's API, property by property, which cost more than reading
 * the rows: 200 grants of six columns took 325-360 µs as objects, 215 µs as arrays built into
 * objects here (the reading alone: 47 µs). The statement is back in object mode when this
 * returns, whatever happens: statements are shared with TypeORM's reads.
 */
export function allRows<T>(statement: EmbeddedStatement, values: unknown[]): T[] {
  let rows: unknown[];
  statement.raw(true);
  try {
    rows = statement.all(...values);
  } finally {
    statement.raw(false);
  }
  const build = builderOf(statement);
  return rows.map((row) => build(row as unknown[]) as T);
}

/**
 * The rows of a statement one at a time, as `allRows` builds them; stepping stops when the
 * caller's loop ends (early or not), and the statement is back in object mode then. The caller
 * steps through it without awaiting in between (the embedded driver's reads are synchronous).
 */
export function* iterateRows<T>(statement: EmbeddedStatement, values: unknown[]): Generator<T, void, undefined> {
  statement.raw(true);
  try {
    const build = builderOf(statement);
    for (const row of statement.iterate(...values)) yield build(row as unknown[]) as T;
  } finally {
    statement.raw(false);
  }
}
