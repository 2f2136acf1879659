import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * The console's sign-in sessions (issue 34): one row per signed-in browser, found by the keyed
 * hash of the cookie's value (the value itself is never stored), for the owner's account, until
 * it expires or is signed out.
 */
export class ConsoleSessions1763950000000 implements MigrationInterface {
  name = 'ConsoleSessions1763950000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(
      `CREATE TABLE console_session (
        session_hash varchar(64) PRIMARY KEY,
        account_id varchar(64) NOT NULL,
        created_at ${d.bigint} NOT NULL,
        expires_at ${d.bigint} NOT NULL
      )`,
    );
    await db.query('CREATE INDEX console_session_expiry_idx ON console_session (expires_at)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE console_session');
  }
}
