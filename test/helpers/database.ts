import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A database of a suite's own, and how to drop it. */
export interface OwnDatabase {
  /** `DATABASE_URL` for the suite: a fresh PostgreSQL database, or undefined on the embedded engine. */
  url: string | undefined;
  drop(): Promise<void>;
}

/**
 * On PostgreSQL (`DATABASE_URL` set), a fresh database beside the suite run's one. Suites that
 * run delivery workers need one: a worker delivers every due delivery in its database, so two
 * suites sharing one would deliver each other's. The embedded engine is per app already.
 */
export async function ownDatabase(): Promise<OwnDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) return { url: undefined, drop: async () => undefined };
  const url = new URL(base);
  const name = `${url.pathname.slice(1)}_${randomBytes(4).toString('hex')}`;
  await runOnPostgres(base, `CREATE DATABASE ${name}`);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => runOnPostgres(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** Runs SQL (one statement or a script) on a connection of its own to `url`. */
export async function runOnPostgres(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
