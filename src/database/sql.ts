import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

type Scalar = string | number | boolean | null;
type Parameters = Record<string, Scalar | readonly Scalar[]>;

interface PreparedText {
  text: string;
  /** Parameter name (and list index) of each placeholder, in order. */
  order: [name: string, index?: number][];
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
   * Rows of a read. Scalar parameters are `:name`, lists `:...name`. The translation to the
   * driver's placeholders is done once per statement text and list lengths.
   */
  async rows<T>(sql: string, parameters: Parameters): Promise<T[]> {
    const prepared = this.prepare(sql, parameters);
    const values = prepared.order.map(([name, index]) => {
      const value = parameters[name]!;
      return toDriverValue(index === undefined ? (value as Scalar) : (value as readonly Scalar[])[index]!);
    });
    if (this.embedded) {
      // Reported like TypeORM's own statements, so query logging sees every statement.
      this.dataSource.logger.logQuery(prepared.text, values);
      let statement = this.statements.get(prepared.text);
      if (!statement) this.statements.set(prepared.text, (statement = this.embedded.prepare(prepared.text)));
      return statement.all(...values) as T[];
    }
    return this.dataSource.query(prepared.text, values);
  }

  private prepare(sql: string, parameters: Parameters): PreparedText {
    const names = Object.keys(parameters);
    const shape = names.map((name) => (Array.isArray(parameters[name]) ? `${name}[${(parameters[name] as unknown[]).length}]` : name)).join(',');
    const cacheKey = `${sql}\u0000${shape}`;
    let prepared = this.prepared.get(cacheKey);
    if (!prepared) {
      // Each value (each list element) is replaced by a marker string naming it; strings always
      // become placeholders (some drivers inline numbers), so the driver's output gives the order.
      const markers = Object.fromEntries(
        names.map((name) => {
          const value = parameters[name];
          return [name, Array.isArray(value) ? value.map((_, i) => `\u0000${name}\u0000${i}`) : `\u0000${name}`];
        }),
      );
      const [text, placed] = this.dataSource.driver.escapeQueryWithParameters(sql, markers);
      prepared = {
        text,
        order: (placed as string[]).map((marker) => {
          const [, name, index] = marker.split('\u0000');
          return index === undefined ? [name!] : [name!, Number(index)];
        }),
      };
      this.prepared.set(cacheKey, prepared);
    }
    return prepared;
  }
}

/** better-sqlite3 binds no booleans. */
function toDriverValue(value: Scalar): string | number | null {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}
