// @testScope engine: the schema migrations build; no HTTP framework is involved.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runMigrations } from '../src/database/migrate.js';
import { databaseSnapshot, dumpSchema, emptyDatabase, type Engine, migratedDatabase, readDump, restoreSql, schemaFixture } from './helpers/schema.js';

/** What the per-dialect migrations (before they were one set) had run: every step up to this one. */
const LAST_PER_DIALECT = 'UserDataJobs1763860000000';

/**
 * The migrations build exactly the schema committed in test/fixtures/schema-<engine>.json
 * (rewritten by test/tools/write-schema-fixtures.ts when a migration is added, so the diff shows
 * the change), and a database built by earlier migrations moves forward to that same schema.
 */
for (const engine of ['sqlite', 'postgres'] as Engine[]) {
  describe(`migration schema on ${engine}`, { skip: engine === 'postgres' && !process.env.DATABASE_URL ? 'needs PostgreSQL (DATABASE_URL)' : false }, () => {
    it('a fresh database gets the committed schema, and a second run finds nothing to do', async () => {
      const database = await migratedDatabase(engine);
      try {
        assert.deepEqual(
          database.applied,
          database.dataSource.migrations.map((step) => step.name),
        );
        assert.deepEqual(await dumpSchema(database.dataSource), readDump(schemaFixture(engine)));
        assert.equal(await database.dataSource.showMigrations(), false);
        assert.deepEqual(await runMigrations(database.dataSource), []);
      } finally {
        await database.close();
      }
    });

    it('every step undoes what it did: all undone and run again, the schema is the same', async () => {
      const database = await migratedDatabase(engine);
      try {
        for (let step = 0; step < database.applied.length; step++) await database.dataSource.undoLastMigration({ transaction: 'each' });
        // Only TypeORM's own table (and what the engine keeps for it) is left.
        const dump = await dumpSchema(database.dataSource);
        assert.deepEqual(
          (dump.objects ?? dump.relations).map((object) => object.name),
          engine === 'sqlite' ? ['migrations', 'sqlite_sequence'] : ['migrations', 'migrations_id_seq'],
        );
        assert.deepEqual(dump.migrations, []);
        assert.deepEqual(await runMigrations(database.dataSource), database.applied);
        assert.deepEqual(await dumpSchema(database.dataSource), readDump(schemaFixture(engine)));
      } finally {
        await database.close();
      }
    });

    it('a database the per-dialect migrations built runs only the steps after them, and ends with the same schema', async () => {
      const database = await emptyDatabase(engine);
      try {
        await restoreSql(database.dataSource, database.url, readFileSync(databaseSnapshot('per-dialect-migrations', engine), 'utf8'));
        const names = database.dataSource.migrations.map((step) => step.name);
        assert.ok(names.includes(LAST_PER_DIALECT));
        assert.deepEqual(await runMigrations(database.dataSource), names.slice(names.indexOf(LAST_PER_DIALECT) + 1));
        assert.deepEqual(await dumpSchema(database.dataSource), readDump(schemaFixture(engine)));
      } finally {
        await database.close();
      }
    });
  });
}
