import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

interface PreparedText {
  text: string;
  /** Parameter names in placeholder order. */
  order: string[];
}

/**
 * Plain SQL for the hottest reads (credential lookups, simple lists), where building a query
 * through TypeORM's query builder costs more than running it. `:name` parameters (scalars) are
 * turned into the driver's placeholders by TypeORM itself, once per statement text, so the SQL
 * stays dialect-neutral.
 */
@Injectable()
export class Sql {
  private readonly prepared = new Map<string, PreparedText>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  rows<T>(sql: string, parameters: Record<string, string | number | boolean | null>): Promise<T[]> {
    let prepared = this.prepared.get(sql);
    if (!prepared) {
      // Each value is replaced by a marker string naming its parameter (strings always become
      // placeholders; some drivers inline numbers), so the driver's output tells the order.
      const names = Object.keys(parameters);
      const [text, markers] = this.dataSource.driver.escapeQueryWithParameters(sql, Object.fromEntries(names.map((name) => [name, `\u0000${name}`])));
      prepared = { text, order: (markers as string[]).map((marker) => marker.slice(1)) };
      this.prepared.set(sql, prepared);
    }
    return this.dataSource.query(prepared.text, prepared.order.map((name) => parameters[name]));
  }
}
