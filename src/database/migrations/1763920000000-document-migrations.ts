import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Migrations of `organizations/documents/migrate` (issue 33): one row per migration a key
 * started, so `.../migrate/status` answers by its id. The document's rows move in the request's
 * transaction and the row is written in it, so a row exists only for a migration that happened;
 * `status` keeps upstream's values (`pending`, `in_progress`, `completed`, `failed`) so a
 * migration run in the background later needs no new column.
 */
export class DocumentMigrations1763920000000 implements MigrationInterface {
  name = 'DocumentMigrations1763920000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE document_migration (
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      id varchar(40) NOT NULL,
      organization_id varchar(256) NOT NULL,
      document_id varchar(256) NOT NULL,
      new_document_id varchar(256) NOT NULL,
      status varchar(16) NOT NULL,
      created_at ${d.bigint} NOT NULL,
      completed_at ${d.bigint},
      PRIMARY KEY (api_key_id, id))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE document_migration');
  }
}
