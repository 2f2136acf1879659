import { SqliteDatabase, type SqliteConnection } from './sqlite-driver.js';
import type { DataSource } from 'typeorm';
import { inUnitOfWork } from './unit-of-work.js';
import { StatementCache } from './statement-cache.js';
import { DATA_QUERY } from './embedded-rows.js';

interface Statement {
  readonly reader: boolean;
}

/**
 * Committed reads for the embedded database. TypeORM's SQLite driver runs everything on one
 * connection, so a read made while another request's transaction is open (between its BEGIN and
 * COMMIT, across its awaits) would see that transaction's uncommitted rows, and show them even
 * if it then rolls back. Reads made outside a unit of work therefore run on a second, read-only
 * connection to the same file, which in WAL mode sees exactly what was committed; reads inside a
 * unit stay on the writing connection and see their own writes.
 *
 * An in-memory database (`SQLITE_FILE=:memory:`) cannot be opened twice: there, reads share the
 * one connection (for throwaway use only; the default is a file).
 */
export class EmbeddedReads {
  private readonly statements = new StatementCache<Statement>(500);

  private constructor(private readonly reader: SqliteConnection) {}

  /**
   * Routes the driver's reads outside units of work to a reader connection, with the page cache
   * of `writer` (the driver's own connection); undefined when it cannot (in memory).
   */
  static attach(dataSource: DataSource, writer: { pragma(sql: string): unknown }): EmbeddedReads | undefined {
    const file = dataSource.options.database;
    if (dataSource.options.type !== 'better-sqlite3' || typeof file !== 'string' || file === ':memory:' || file === '') return undefined;
    const reader = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
    reader.pragma('busy_timeout = 5000');
    const [{ cache_size: cacheSize }] = writer.pragma('cache_size') as { cache_size: number }[];
    reader.pragma(`cache_size = ${cacheSize}`);
    const reads = new EmbeddedReads(reader);
    // The driver's one query runner serves every query; its statement lookup is where a read is
    // sent to the reader connection when it is not part of a unit of work.
    const runner = dataSource.driver.createQueryRunner('master') as unknown as { getStmt: (query: string) => Promise<Statement> };
    const writerStatement = runner.getStmt.bind(runner);
    runner.getStmt = async (query: string) => {
      const statement = await writerStatement(query);
      // Queries of data only: a PRAGMA reads the state of the connection it runs on.
      return statement.reader && DATA_QUERY.test(query) && !inUnitOfWork() ? reads.prepared(query) : statement;
    };
    return reads;
  }

  /**
   * The statement on the reader connection, kept by text unless `keep` is false (a statement
   * with long lists, which `Sql` does not keep either). TypeORM's own reads come with their lists
   * written out, one text per length; the cache holds the 500 used most recently.
   */
  prepared<T extends Statement>(text: string, keep = true): T {
    return (keep ? this.statements.get(text, () => this.reader.prepare(text)) : this.reader.prepare(text)) as T;
  }

  close(): void {
    this.reader.close();
  }
}
