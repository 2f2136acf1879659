import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { databaseAsSql, databaseSnapshot, dumpSchema, type Engine, formatDump, migratedDatabase, schemaFixture } from '../helpers/schema.js';

/**
 * Writes the schema fixtures from a fresh database built by the current migrations: SQLite
 * always, PostgreSQL when `DATABASE_URL` is set. After adding a migration, run
 *   npm run build && node dist/test/tools/write-schema-fixtures.js
 * (once with `DATABASE_URL`) and commit the diff of test/fixtures/schema-*.json: it is the
 * schema change, for review. `--snapshot NAME` also writes test/fixtures/NAME-<engine>.sql, a
 * database of this version for upgrade tests.
 */
const { values } = parseArgs({ options: { snapshot: { type: 'string' } } });
const engines: Engine[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
for (const engine of engines) {
  const database = await migratedDatabase(engine);
  try {
    writeFileSync(schemaFixture(engine), formatDump(await dumpSchema(database.dataSource)));
    if (values.snapshot) writeFileSync(databaseSnapshot(values.snapshot, engine), await databaseAsSql(database.dataSource, database.url));
    console.log(`${engine}: ${database.applied.length} migrations, fixtures written`);
  } finally {
    await database.close();
  }
}
