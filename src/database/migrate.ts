import { type DataSource, MigrationExecutor } from 'typeorm';
import { runUnit } from './unit-of-work.js';

/** Arbitrary constant naming this service's migration lock on PostgreSQL. */
const MIGRATION_LOCK_ID = 716_274_311;

/**
 * Runs pending migrations. On PostgreSQL several instances (or parallel test processes) may
 * start at once against a fresh database, so they take turns under an advisory lock; the
 * embedded database has one process. PostgreSQL's migrations run on the lock's session with the
 * pool's statement and lock time limits lifted for it alone: a step may rewrite a large table,
 * and an instance waits for another's migrations as long as they take.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  if (dataSource.options.type !== 'postgres') {
    // Its reads belong to its own transactions: on the writing connection (see `EmbeddedReads`).
    return runUnit(undefined, async () => (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name));
  }
  const session = dataSource.createQueryRunner();
  await session.connect();
  try {
    await session.query('SET statement_timeout = 0');
    await session.query('SET lock_timeout = 0');
    await session.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    const executor = new MigrationExecutor(dataSource, session);
    executor.transaction = 'each';
    return (await executor.executePendingMigrations()).map((m) => m.name);
  } finally {
    await session.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    // Back to the pool's limits (the connection's start-up values) before the pool reuses it.
    await session.query('RESET statement_timeout').catch(() => undefined);
    await session.query('RESET lock_timeout').catch(() => undefined);
    await session.release();
  }
}
