import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../src/database/sqlite-driver.js';
import pg from 'pg';
import type { BareDatabase } from './scenarios.js';

/** The baseline's database access: the driver alone, no ORM. SQL uses `?` placeholders. */
export function openBareDatabase(target: string): BareDatabase & { close(): Promise<void> } {
  if (target.startsWith('postgres')) {
    const pool = new pg.Pool({ connectionString: target, max: 10 });
    return {
      query: async <T>(sql: string, params: unknown[]) => {
        let n = 0;
        return (
          await pool.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows as T[];
      },
      close: () => pool.end(),
    };
  }
  const db = new SqliteDatabase(target, { readonly: true });
  db.pragma('busy_timeout = 5000');
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    query: async <T>(sql: string, params: unknown[]) => {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      return statement.all(...params) as T[];
    },
    close: async () => {
      db.close();
    },
  };
}
