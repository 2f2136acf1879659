import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes so that a comment write or read costs the same whatever its thread's size (issue 31):
 * - `comment_thread_order_idx`: a thread's comments in answer order (created_at, comment_id),
 *   so a page of comments/get, or of a thread's comments in annotations get, reads its rows
 *   and stops, instead of sorting the whole thread.
 * - `comment_author_idx`: who has commented in a thread (the `involvedUserIds` of a comment
 *   event), read from the index alone, not from the comments' bodies.
 */
export class CommentReadingIndexes1763890000000 implements MigrationInterface {
  name = 'CommentReadingIndexes1763890000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX comment_thread_order_idx ON comment (api_key_id, organization_id, annotation_id, created_at, comment_id)');
    await db.query('CREATE INDEX comment_author_idx ON comment (api_key_id, organization_id, annotation_id, from_user_id)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX comment_author_idx');
    await db.query('DROP INDEX comment_thread_order_idx');
  }
}
