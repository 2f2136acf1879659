import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

type Scalar = string | number | boolean | null;
type Parameters = Record<string, Scalar | readonly Scalar[]>;

interface PreparedText {
  text: string;
  /** Parameter names in placeholder order. */
  order: string[];
}

/** A synchronous prepared statement of the embedded driver (better-sqlite3). */
interface EmbeddedStatement {
  all(...values: unknown[]): unknown[];
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
 * times the lookup itself; on PostgreSQL it goes through TypeORM's pool.
 */
@Injectable()
export class Sql {
  private readonly prepared = new Map<string, PreparedText>();
  private readonly statements = new Map<string, EmbeddedStatement>();
  private readonly embedded: { prepare(text: string): EmbeddedStatement } | undefined;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.embedded =
      dataSource.options.type === 'better-sqlite3' ? (dataSource.driver as unknown as { databaseConnection: { prepare(text: string): EmbeddedStatement } }).databaseConnection : undefined;
  }

  /**
   * Rows of a read. Scalar parameters are `:name`; lists are `:...name` (expanded by TypeORM,
   * so such statements are translated per call; their prepared statements are still reused
   * for each list length).
   */
  async rows<T>(sql: string, parameters: Parameters): Promise<T[]> {
    let text: string;
    let values: unknown[];
    if (Object.values(parameters).some(Array.isArray)) {
      [text, values] = this.dataSource.driver.escapeQueryWithParameters(sql, parameters);
      values = values.map((value) => toDriverValue(value as Scalar));
    } else {
      const prepared = this.prepare(sql, parameters as Record<string, Scalar>);
      text = prepared.text;
      values = prepared.order.map((name) => toDriverValue(parameters[name] as Scalar));
    }
    if (this.embedded) {
      // Reported like TypeORM's own statements, so query logging sees every statement.
      this.dataSource.logger.logQuery(text, values);
      let statement = this.statements.get(text);
      if (!statement) this.statements.set(text, (statement = this.embedded.prepare(text)));
      return statement.all(...values) as T[];
    }
    return this.dataSource.query(text, values);
  }

  private prepare(sql: string, parameters: Record<string, Scalar>): PreparedText {
    let prepared = this.prepared.get(sql);
    if (!prepared) {
      // Each value is replaced by a marker string naming its parameter (strings always become
      // placeholders; some drivers inline numbers), so the driver's output tells the order.
      const names = Object.keys(parameters);
      const [text, markers] = this.dataSource.driver.escapeQueryWithParameters(sql, Object.fromEntries(names.map((name) => [name, `\u0000${name}`])));
      prepared = { text, order: (markers as string[]).map((marker) => marker.slice(1)) };
      this.prepared.set(sql, prepared);
    }
    return prepared;
  }
}

/** better-sqlite3 binds no booleans. */
function toDriverValue(value: Scalar): string | number | null {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}
