import { DataSource } from 'typeorm';
import { unitOfWork } from './unit-of-work.js';

/** Arbitrary constant naming this service's migration lock on PostgreSQL. */
const MIGRATION_LOCK_ID = 716_274_311;

/**
 * Runs pending migrations. On PostgreSQL several instances (or parallel test processes) may
 * start at once against a fresh database, so they take turns under an advisory lock; the
 * embedded database has one process. PostgreSQL's migrations run on a connection of their own
 * without the pool's statement and lock time limits: a step may rewrite a large table, and an
 * instance waits for another's migrations as long as they take.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  if (dataSource.options.type !== 'postgres') {
    // Its reads belong to its own transactions: on the writing connection (see `EmbeddedReads`).
    return unitOfWork.run(true, async () => (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name));
  }
  const unbounded = await new DataSource({
    ...dataSource.options,
    extra: { ...(dataSource.options.extra as object), max: 2, statement_timeout: 0, lock_timeout: 0 },
  }).initialize();
  const lockHolder = unbounded.createQueryRunner();
  try {
    await lockHolder.connect();
    await lockHolder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    return (await unbounded.runMigrations({ transaction: 'each' })).map((m) => m.name);
  } finally {
    await lockHolder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await lockHolder.release();
    await unbounded.destroy();
  }
}
