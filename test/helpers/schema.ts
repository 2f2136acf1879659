import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options.js';
import { runMigrations } from '../../src/database/migrate.js';
import { ownDatabase, runOnPostgres } from './database.js';

export type Engine = 'sqlite' | 'postgres';

/** A schema as rows per kind of object, each list in a fixed order, so two dumps compare equal exactly when the schemas do. */
export type SchemaDump = Record<string, Record<string, unknown>[]>;

/** The committed dump of each engine's schema, as the migrations build it. */
export const schemaFixture = (engine: Engine) => new URL(`../../../test/fixtures/schema-${engine}.json`, import.meta.url);

/**
 * A snapshot of a database built by an earlier version's migrations, as SQL (`databaseAsSql`):
 * its schema and the rows of TypeORM's `migrations` table. Restored, it is the database an
 * installation of that version has, to upgrade in a test.
 */
export const databaseSnapshot = (name: string, engine: Engine) => new URL(`../../../test/fixtures/${name}-${engine}.sql`, import.meta.url);

/** The schema of a database: what a migration set built, normalised so that it is deterministic. */
export function dumpSchema(dataSource: DataSource): Promise<SchemaDump> {
  return dataSource.options.type === 'postgres' ? dumpPostgres(dataSource) : dumpSqlite(dataSource);
}

/**
 * The catalogue of the embedded engine: every object's SQL (whitespace collapsed: how a
 * migration's source is indented is not schema), and what SQLite derives from it per table.
 * Index lists are sorted by name (their order otherwise follows creation order).
 */
async function dumpSqlite(db: DataSource): Promise<SchemaDump> {
  const objects = (await db.query(`SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name`)) as {
    type: string;
    name: string;
    tbl_name: string;
    sql: string | null;
  }[];
  const dump: SchemaDump = {
    objects: objects.map((o) => ({ ...o, sql: o.sql === null ? null : o.sql.replace(/\s+/g, ' ').trim() })),
    columns: [],
    indexes: [],
    indexColumns: [],
    foreignKeys: [],
  };
  for (const { name: table } of objects.filter((o) => o.type === 'table')) {
    const quoted = `"${table.replace(/"/g, '""')}"`;
    for (const column of await db.query(`PRAGMA table_xinfo(${quoted})`)) dump.columns.push({ table, ...column });
    const indexes = ((await db.query(`PRAGMA index_list(${quoted})`)) as { seq: number; name: string }[]).sort((a, b) => a.name.localeCompare(b.name));
    for (const { seq: _seq, ...index } of indexes) {
      dump.indexes.push({ table, ...index });
      for (const column of await db.query(`PRAGMA index_xinfo("${index.name.replace(/"/g, '""')}")`)) dump.indexColumns.push({ index: index.name, ...column });
    }
    for (const key of await db.query(`PRAGMA foreign_key_list(${quoted})`)) dump.foreignKeys.push({ table, ...key });
  }
  dump.migrations = await migrationRows(db);
  return dump;
}

/**
 * The catalogue of PostgreSQL for the current schema. Column positions are given by order
 * only (a dropped column leaves a gap in the numbers). NOT NULL is read from the columns, not
 * from `pg_constraint`, where PostgreSQL 18 starts listing it.
 */
async function dumpPostgres(db: DataSource): Promise<SchemaDump> {
  return {
    relations:
      await db.query(`SELECT c.relname AS name, c.relkind AS kind, c.reloptions AS options FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') ORDER BY c.relname`),
    columns: await db.query(`SELECT table_name, column_name, data_type, udt_name, character_maximum_length, numeric_precision, numeric_scale, collation_name,
        is_nullable, column_default, is_identity, is_generated, generation_expression
      FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`),
    constraints: await db.query(`SELECT cl.relname AS table, co.conname AS name, co.contype AS type, pg_get_constraintdef(co.oid) AS definition
      FROM pg_constraint co JOIN pg_class cl ON cl.oid = co.conrelid JOIN pg_namespace n ON n.oid = cl.relnamespace
      WHERE n.nspname = current_schema() AND co.contype IN ('p', 'u', 'f', 'c', 'x') ORDER BY cl.relname, co.conname`),
    indexes: await db.query(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY tablename, indexname`),
    triggers: await db.query(`SELECT event_object_table, trigger_name, action_timing, event_manipulation, action_orientation, action_statement
      FROM information_schema.triggers WHERE trigger_schema = current_schema() ORDER BY event_object_table, trigger_name, event_manipulation`),
    functions: await db.query(`SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = current_schema() ORDER BY p.proname, definition`),
    migrations: await migrationRows(db),
  };
}

/** What TypeORM recorded as run, in order: the names decide what a later start runs. */
async function migrationRows(db: DataSource): Promise<Record<string, unknown>[]> {
  const rows = (await db.query('SELECT timestamp, name FROM migrations ORDER BY id')) as { timestamp: number | string; name: string }[];
  return rows.map((row) => ({ timestamp: Number(row.timestamp), name: row.name }));
}

/** A dump as JSON with one row per line, so a change to the schema is a readable diff. */
export function formatDump(dump: SchemaDump): string {
  const lists = Object.entries(dump).map(
    ([kind, rows]) => `  ${JSON.stringify(kind)}: [${rows.length === 0 ? '' : `\n${rows.map((row) => `    ${JSON.stringify(row)}`).join(',\n')}\n  `}]`,
  );
  return `{\n${lists.join(',\n')}\n}\n`;
}

export function readDump(file: URL): SchemaDump {
  return JSON.parse(readFileSync(file, 'utf8')) as SchemaDump;
}

/** A fresh, empty database of the engine (PostgreSQL beside `DATABASE_URL`'s), opened with the service's options but not migrated. */
export async function emptyDatabase(engine: Engine): Promise<{ dataSource: DataSource; url: string | undefined; close(): Promise<void> }> {
  if (engine === 'sqlite') {
    const dataSource = await new DataSource(dataSourceOptions({ dialect: 'sqlite', database: ':memory:' })).initialize();
    return { dataSource, url: undefined, close: () => dataSource.destroy() };
  }
  const own = await ownDatabase();
  if (!own.url) throw new Error('PostgreSQL needs DATABASE_URL');
  const dataSource = await new DataSource(dataSourceOptions({ dialect: 'postgres', database: own.url })).initialize();
  return {
    dataSource,
    url: own.url,
    close: async () => {
      await dataSource.destroy();
      await own.drop();
    },
  };
}

/** A fresh database built by the service's migrations. */
export async function migratedDatabase(
  engine: Engine,
): Promise<{ dataSource: DataSource; url: string | undefined; applied: string[]; close(): Promise<void> }> {
  const database = await emptyDatabase(engine);
  try {
    return { ...database, applied: await runMigrations(database.dataSource) };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/**
 * The SQL that rebuilds a migrated database's schema and its record of migrations: the catalogue's
 * own statements on SQLite (minus what SQLite makes itself: automatic indexes, the FTS5 shadow
 * tables, `sqlite_sequence`), `pg_dump` on PostgreSQL.
 */
export async function databaseAsSql(dataSource: DataSource, url: string | undefined): Promise<string> {
  return `-- A database built by the migrations (written by test/tools/write-schema-fixtures.ts --snapshot).\n${await databaseSql(dataSource, url)}`;
}

async function databaseSql(dataSource: DataSource, url: string | undefined): Promise<string> {
  if (dataSource.options.type === 'postgres') {
    // Without psql's meta-commands (`\restrict` with a random key): the script is run by the driver.
    const dump = (...args: string[]) =>
      execFileSync('pg_dump', ['--no-owner', '--no-privileges', ...args, url!], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => !line.startsWith('\\'))
        .join('\n');
    return `${dump('--schema-only')}\n${dump('--data-only', '--inserts', '--table=migrations')}`;
  }
  const shadow = new Set(
    ((await dataSource.query(`PRAGMA table_list`)) as { name: string; type: string }[]).filter((t) => t.type === 'shadow').map((t) => t.name),
  );
  const objects = (await dataSource.query(`SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid`)) as { name: string; sql: string }[];
  const statements = objects.filter((o) => !shadow.has(o.name) && o.name !== 'sqlite_sequence').map((o) => `${o.sql};`);
  for (const row of (await dataSource.query('SELECT id, timestamp, name FROM migrations ORDER BY id')) as { id: number; timestamp: number; name: string }[]) {
    statements.push(`INSERT INTO migrations (id, timestamp, name) VALUES (${row.id}, ${row.timestamp}, '${row.name.replace(/'/g, "''")}');`);
  }
  return `${statements.join('\n')}\n`;
}

/** Runs a file of SQL (as `databaseAsSql` writes it) on an empty database. */
export async function restoreSql(dataSource: DataSource, url: string | undefined, sql: string): Promise<void> {
  if (dataSource.options.type === 'postgres') {
    // On a connection of its own: pg_dump's script empties that session's search_path.
    return runOnPostgres(url!, sql);
  }
  const driver = dataSource.driver as unknown as { databaseConnection: { exec(sql: string): void } };
  driver.databaseConnection.exec(sql);
}
