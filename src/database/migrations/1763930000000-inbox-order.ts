import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's inbox in upstream's order (issue 33): notifications get with `userId` reads by
 * (timestamp, id) in `order`, read and unread alike, where it read unread first.
 * - `inbox_recipient_inbox_idx`: a user's entries by (timestamp, notification_id), so a page
 *   of their inbox in either direction reads its rows from the index and stops.
 * - `inbox_recipient_unread_idx` (partial, `is_read = 0`) replaces `inbox_recipient_user_idx`,
 *   which led with `is_read` for the old order: which threads hold a user's unread entries
 *   (count/get) still reads only those entries, and an entry leaves the index when it is read.
 */
export class InboxOrder1763930000000 implements MigrationInterface {
  name = 'InboxOrder1763930000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX inbox_recipient_inbox_idx ON inbox_recipient (api_key_id, organization_id, user_id, timestamp, notification_id)');
    await db.query('CREATE INDEX inbox_recipient_unread_idx ON inbox_recipient (api_key_id, organization_id, user_id, notification_id) WHERE is_read = 0');
    await db.query('DROP INDEX inbox_recipient_user_idx');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX inbox_recipient_user_idx ON inbox_recipient (api_key_id, organization_id, user_id, is_read, timestamp, notification_id)');
    await db.query('DROP INDEX inbox_recipient_unread_idx');
    await db.query('DROP INDEX inbox_recipient_inbox_idx');
  }
}
