import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/** Tables of the comments and inbox modules, children first: each row is of one organization. */
const ORGANIZATION_TABLES = ['comment_mention', 'comment', 'comment_annotation', 'inbox_recipient', 'inbox_notification'] as const;

/**
 * Additions of issue 20:
 * - `comment_counter`: the last `annotationNumber` given out in each document, so threads are
 *   numbered 1, 2, 3… per document. An add takes its numbers with one upsert of this row, which
 *   also makes concurrent adds to one document take turns (PostgreSQL's row lock).
 * - `activity.immutable`: set on records written while the key's activity config has
 *   `immutable: true`; activities update and delete refuse them. A column (not only the body's
 *   flag) so a delete by document or entity can leave them in SQL.
 * - Threads and notifications now go with their organization (`ON DELETE CASCADE`, as every other
 *   table keyed by organization): until now deleting an organization left them behind, to
 *   reappear if one of the same id was made again. Those left behind are deleted first. SQLite
 *   cannot add a constraint to a table, so there the two tables are rebuilt (its documented
 *   create-copy-drop-rename; migrations run with foreign keys off, so nothing cascades meanwhile).
 */
export class ThreadNumbersAndImmutableActivities1763880000000 implements MigrationInterface {
  name = 'ThreadNumbersAndImmutableActivities1763880000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE comment_counter (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      document_id varchar(256) NOT NULL,
      last_number ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, document_id),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE)`);
    await db.query('ALTER TABLE activity ADD COLUMN immutable integer NOT NULL DEFAULT 0');

    for (const table of ORGANIZATION_TABLES) {
      await db.query(
        `DELETE FROM ${table} WHERE NOT EXISTS (SELECT 1 FROM organization o WHERE o.api_key_id = ${table}.api_key_id AND o.id = ${table}.organization_id)`,
      );
    }
    if (d.postgres) {
      for (const table of ['comment_annotation', 'inbox_notification']) {
        await db.query(
          `ALTER TABLE ${table} ADD CONSTRAINT ${table}_organization_fk FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE`,
        );
      }
      return;
    }
    await rebuild(
      db,
      'comment_annotation',
      `api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      organization_id varchar(256) NOT NULL,
      annotation_id varchar(256) NOT NULL,
      document_id varchar(256) NOT NULL,
      location_id varchar(256),
      status_id varchar(256) NOT NULL,
      status_type varchar(16) NOT NULL,
      from_user_id varchar(256) NOT NULL,
      assignee_id varchar(256),
      resolved_by varchar(256),
      annotation_type varchar(16) NOT NULL,
      agent_id varchar(256),
      agent_source varchar(16),
      execution_id varchar(256),
      suggestion_status varchar(16),
      created_at integer NOT NULL,
      last_updated integer NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, annotation_id),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE`,
      [
        'CREATE INDEX comment_annotation_document_idx ON comment_annotation (api_key_id, organization_id, document_id, last_updated, annotation_id)',
        'CREATE INDEX comment_annotation_updated_idx ON comment_annotation (api_key_id, organization_id, last_updated, annotation_id)',
      ],
    );
    await rebuild(
      db,
      'inbox_notification',
      `api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      organization_id varchar(256) NOT NULL,
      id varchar(256) NOT NULL,
      document_id varchar(256),
      location_id varchar(256),
      annotation_id varchar(256),
      timestamp integer NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, id),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE`,
      ['CREATE INDEX inbox_notification_document_idx ON inbox_notification (api_key_id, organization_id, document_id, timestamp, id)'],
    );
  }

  async down(db: QueryRunner): Promise<void> {
    if (dialectOf(db).postgres)
      for (const table of ['comment_annotation', 'inbox_notification']) await db.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_organization_fk`);
    await db.query('ALTER TABLE activity DROP COLUMN immutable');
    await db.query('DROP TABLE comment_counter');
  }
}

/** SQLite: the table made again with new `columns` (same column names, same order), its rows copied, its indexes made again. */
async function rebuild(db: QueryRunner, table: string, columns: string, indexes: string[]): Promise<void> {
  await db.query(`CREATE TABLE ${table}_rebuilt (${columns})`);
  await db.query(`INSERT INTO ${table}_rebuilt SELECT * FROM ${table}`);
  await db.query(`DROP TABLE ${table}`);
  await db.query(`ALTER TABLE ${table}_rebuilt RENAME TO ${table}`);
  for (const index of indexes) await db.query(index);
}
