import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Files attached to comments (issue 33): one row per stored blob, naming the comment it belongs
 * to. No foreign key: a blob outlives its row's deletion only until the sweep deletes it, so the
 * row stays until its blob is gone; the sweep finds rows whose comment is gone (deleted, its
 * thread or document deleted, or erased) by the comment's key, which the index leads with.
 */
export class Attachments1763910000000 implements MigrationInterface {
  name = 'Attachments1763910000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE attachment (
      api_key_id varchar(24) NOT NULL,
      attachment_id ${d.bigint} NOT NULL,
      organization_id varchar(256) NOT NULL,
      document_id varchar(256) NOT NULL,
      annotation_id varchar(256) NOT NULL,
      comment_id ${d.bigint} NOT NULL,
      name text NOT NULL,
      mime_type varchar(255) NOT NULL,
      size ${d.bigint} NOT NULL,
      blob_key varchar(128) NOT NULL,
      created_at ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, attachment_id))`);
    await db.query('CREATE INDEX attachment_comment_idx ON attachment (api_key_id, organization_id, annotation_id, comment_id)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE attachment');
  }
}
