import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { SqliteDatabase } from './sqlite-driver.js';
import { MIGRATIONS } from './migrations/index.js';

/** Connections of the PostgreSQL pool: ten for requests, and two the delivery worker holds for its claims and outcomes. */
export const POSTGRES_POOL_SIZE = 12;

/**
 * DataSource options for either engine; used by the app and by `ormconfig.ts`. Entities are not
 * listed here: each module registers its own (`TypeOrmModule.forFeature`) and the app's data
 * source loads them (`autoLoadEntities`), so this folder imports no feature. Migrations are
 * the schema (`synchronize` stays off): one set for both engines, each step choosing its
 * dialect's words itself (migrations/dialect.ts).
 */
export function dataSourceOptions(
  config: Pick<AppConfig, 'dialect' | 'database'> &
    Partial<Pick<AppConfig, 'databasePoolWaitMs' | 'databaseStatementTimeoutMs' | 'databaseLockTimeoutMs' | 'sqliteCacheBytes'>>,
): DataSourceOptions {
  const shared = {
    synchronize: false,
    // Run by `runMigrations` (under a lock on PostgreSQL), not by TypeORM at initialise.
    migrationsRun: false,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each' as const,
    logging: false,
  };
  if (config.dialect === 'postgres') {
    return {
      ...shared,
      type: 'postgres',
      url: config.database,
      parseInt8: true,
      // Also the longest wait for a free connection of the pool: then the request answers 503.
      connectTimeoutMS: config.databasePoolWaitMs ?? 5000,
      extra: {
        max: POSTGRES_POOL_SIZE,
        // Every session of the pool: no statement nor lock wait outlives the request that made it
        // (both end as 503 UNAVAILABLE, with Retry-After). Migrations run on a session of their own.
        statement_timeout: config.databaseStatementTimeoutMs ?? 0,
        lock_timeout: config.databaseLockTimeoutMs ?? 0,
      },
    };
  }
  return {
    ...shared,
    type: 'better-sqlite3',
    driver: SqliteDatabase,
    database: config.database,
    enableWAL: config.database !== ':memory:',
    prepareDatabase: (db: { pragma: (sql: string) => unknown }) => {
      // One writer at a time: wait instead of failing when another connection holds the lock.
      db.pragma('busy_timeout = 5000');
      db.pragma('synchronous = NORMAL');
      // `SQLITE_CACHE_SIZE`, in KiB when negative; the reader connection takes the same
      // (`EmbeddedReads`). Callers without the setting (the schema tests) keep the driver's.
      if (config.sqliteCacheBytes) db.pragma(`cache_size = ${-Math.ceil(config.sqliteCacheBytes / 1024)}`);
      // Each unit of a commit group runs in a savepoint, and SQLite keeps the pages a savepoint
      // may have to restore in a statement journal: in memory up to 64 KiB, then in a temporary
      // file. A unit journals every page it changes that the units before it in the group already
      // changed, so a comment add's unit passed 64 KiB and wrote its journal to a file (about 23
      // more write calls per add). Kept in memory, the add's statements took 67 µs instead of
      // 171 µs. Temporary sorts of this connection stay in memory too; the ones it makes (in
      // user-data erasure) are bounded by their chunks of 500.
      db.pragma('temp_store = MEMORY');
      // Deleted and overwritten content is zeroed in the file, not left in free space where a
      // copy of the disk would still show it: user-data erasure must reach the bytes (the log's
      // copies go with the checkpoint after each erasure job). It costs little: SQLite writes the
      // pages it changes anyway, and zeroes what it frees on them.
      db.pragma('secure_delete = ON');
    },
  };
}
