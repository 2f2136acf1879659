import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Who is present in a document (issue 32): one row per user and holder. The holder `server` is
 * an entry of `presence/add|update` (it lasts `LIVE_PRESENCE_TTL_SECONDS`); any other holder
 * is the live instance whose clients are connected as that user, which refreshes its rows
 * while they stay and deletes them when they leave (a crashed instance's rows expire). Rows go
 * with their document; reads skip expired rows and a sweep deletes them.
 */
export class LivePresence1763900000000 implements MigrationInterface {
  name = 'LivePresence1763900000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE live_presence (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      document_id varchar(256) NOT NULL,
      user_id varchar(256) NOT NULL,
      holder varchar(64) NOT NULL,
      name text,
      email text,
      status varchar(64) NOT NULL,
      expires_at ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, document_id, user_id, holder),
      FOREIGN KEY (api_key_id, organization_id, document_id) REFERENCES document(api_key_id, organization_id, id) ON DELETE CASCADE)`);
    await db.query('CREATE INDEX live_presence_expiry_idx ON live_presence (expires_at)');
    await db.query('CREATE INDEX live_presence_holder_idx ON live_presence (holder)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE live_presence');
  }
}
