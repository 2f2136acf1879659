import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Comment threads (the comments module) and in-app notifications (the inbox module).
 *
 * A thread is one `comment_annotation` row and its `comment` rows; what is filtered or ordered
 * on has a column, the rest of each record is JSON text (`body`), as activities keep theirs.
 * `comment_mention` lists who each comment tags, for the `mentionedUserIds` filter. A thread's
 * comments and mentions go with it (`ON DELETE CASCADE`).
 *
 * A notification is one `inbox_notification` row; each user it went to has an `inbox_recipient`
 * row holding that user's read state, indexed for "this user's inbox, unread first, newest first".
 */
export class CommentsAndInbox1763870000000 implements MigrationInterface {
  name = 'CommentsAndInbox1763870000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE comment_annotation (
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
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
      created_at ${d.bigint} NOT NULL,
      last_updated ${d.bigint} NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, annotation_id))`);
    await db.query(
      'CREATE INDEX comment_annotation_document_idx ON comment_annotation (api_key_id, organization_id, document_id, last_updated, annotation_id)',
    );
    await db.query('CREATE INDEX comment_annotation_updated_idx ON comment_annotation (api_key_id, organization_id, last_updated, annotation_id)');
    await db.query(`CREATE TABLE comment (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      annotation_id varchar(256) NOT NULL,
      comment_id ${d.bigint} NOT NULL,
      from_user_id varchar(256) NOT NULL,
      created_at ${d.bigint} NOT NULL,
      last_updated ${d.bigint} NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, annotation_id, comment_id),
      FOREIGN KEY (api_key_id, organization_id, annotation_id) REFERENCES comment_annotation (api_key_id, organization_id, annotation_id) ON DELETE CASCADE)`);
    await db.query(`CREATE TABLE comment_mention (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      annotation_id varchar(256) NOT NULL,
      comment_id ${d.bigint} NOT NULL,
      user_id varchar(256) NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, annotation_id, comment_id, user_id),
      FOREIGN KEY (api_key_id, organization_id, annotation_id, comment_id) REFERENCES comment (api_key_id, organization_id, annotation_id, comment_id) ON DELETE CASCADE)`);
    await db.query('CREATE INDEX comment_mention_user_idx ON comment_mention (api_key_id, organization_id, user_id, annotation_id)');
    await db.query(`CREATE TABLE inbox_notification (
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      organization_id varchar(256) NOT NULL,
      id varchar(256) NOT NULL,
      document_id varchar(256),
      location_id varchar(256),
      annotation_id varchar(256),
      timestamp ${d.bigint} NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, id))`);
    await db.query('CREATE INDEX inbox_notification_document_idx ON inbox_notification (api_key_id, organization_id, document_id, timestamp, id)');
    await db.query(`CREATE TABLE inbox_recipient (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      notification_id varchar(256) NOT NULL,
      user_id varchar(256) NOT NULL,
      is_read integer NOT NULL,
      timestamp ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, notification_id, user_id),
      FOREIGN KEY (api_key_id, organization_id, notification_id) REFERENCES inbox_notification (api_key_id, organization_id, id) ON DELETE CASCADE)`);
    await db.query('CREATE INDEX inbox_recipient_user_idx ON inbox_recipient (api_key_id, organization_id, user_id, is_read, timestamp, notification_id)');
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['inbox_recipient', 'inbox_notification', 'comment_mention', 'comment', 'comment_annotation']) await db.query(`DROP TABLE ${table}`);
  }
}
