import type { DataSource } from 'typeorm';

/**
 * Makes TypeORM bind integers on the embedded database instead of writing them into the text.
 * Its SQLite driver writes every number parameter into the statement (`escapeQueryWithParameters`),
 * so a TypeORM write of a row's timestamps (`created_at`, `last_updated`: the time in
 * milliseconds) was a new statement text on every call: prepared anew each time (0.4-4 ms on a
 * slow machine), and pushing the statements TypeORM keeps (a hundred, the oldest out first) out
 * of its cache, so they were prepared anew too. Integers now go as `BigInt` parameters, which the
 * driver binds as SQLite integers: the value and storage class the written literal had (a plain
 * JavaScript number would bind as a real). Other numbers, and list items (always bound), are left
 * as TypeORM passes them. `Sql` translates with markers of its own and is not affected.
 */
export function bindEmbeddedIntegers(dataSource: DataSource): void {
  if (dataSource.options.type !== 'better-sqlite3') return;
  const driver = dataSource.driver;
  const escape = driver.escapeQueryWithParameters.bind(driver);
  driver.escapeQueryWithParameters = (sql: string, parameters: Record<string, unknown>) => {
    if (!parameters || !Object.values(parameters).some(Number.isSafeInteger)) return escape(sql, parameters);
    const bound = Object.fromEntries(Object.entries(parameters).map(([name, value]) => [name, Number.isSafeInteger(value) ? BigInt(value as number) : value]));
    return escape(sql, bound);
  };
}
