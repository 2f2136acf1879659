import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Two small additions of issue 20:
 * - `comment_counter`: the last `annotationNumber` given out in each document, so threads are
 *   numbered 1, 2, 3… per document. An add takes its numbers with one upsert of this row, which
 *   also makes concurrent adds to one document take turns (PostgreSQL's row lock).
 * - `activity.immutable`: set on records written while the key's activity config has
 *   `immutable: true`; activities update and delete refuse them. A column (not only the body's
 *   flag) so a delete by document or entity can leave them in SQL.
 */
export class ThreadNumbersAndImmutableActivities1763880000000 implements MigrationInterface {
  name = 'ThreadNumbersAndImmutableActivities1763880000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE comment_counter (
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      organization_id varchar(256) NOT NULL,
      document_id varchar(256) NOT NULL,
      last_number ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, document_id))`);
    await db.query('ALTER TABLE activity ADD COLUMN immutable integer NOT NULL DEFAULT 0');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE activity DROP COLUMN immutable');
    await db.query('DROP TABLE comment_counter');
  }
}
