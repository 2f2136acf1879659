import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes in the order of pages read with a filter, so a page reads what it answers and no
 * more. Before them each of these pages walked every row of the key or organization, newest
 * first, testing the filter on each, until it had a page (SQLite, 100k rows beside a few):
 * - `memory/judgments/query` of one organization: the key-wide index, then a sort for the
 *   tie-break (44 ms for an organization of a few judgments beside one of 100k);
 * - the same of one reviewer there (43 ms for 10 judgments among 100k);
 * - `commentannotations/get` of some authors (`userIds`): 38 ms for 1,001 threads of 100k.
 * And the user-data export's pages of a user's grants and groups, which walked every grant or
 * membership of the organization (2.6–3.5 ms and 1.9 ms at 49k and 39k): the users' indexes
 * go on in those pages' order.
 */
export class FilteredPageIndexes1763980000000 implements MigrationInterface {
  name = 'FilteredPageIndexes1763980000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX judgment_organization_recent_idx ON judgment (api_key_id, organization_id, timestamp, activity_id)');
    await db.query('CREATE INDEX judgment_reviewer_recent_idx ON judgment (api_key_id, organization_id, reviewer_id, timestamp, activity_id)');
    await db.query('CREATE INDEX comment_annotation_author_idx ON comment_annotation (api_key_id, organization_id, from_user_id, last_updated, annotation_id)');
    await db.query('DROP INDEX access_grant_user_idx');
    await db.query('CREATE INDEX access_grant_user_idx ON access_grant (api_key_id, organization_id, user_id, resource_type, resource_id, temporary)');
    await db.query('DROP INDEX user_group_member_user_idx');
    await db.query('CREATE INDEX user_group_member_user_idx ON user_group_member (api_key_id, organization_id, user_id, group_id)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX user_group_member_user_idx');
    await db.query('CREATE INDEX user_group_member_user_idx ON user_group_member (api_key_id, organization_id, user_id)');
    await db.query('DROP INDEX access_grant_user_idx');
    await db.query('CREATE INDEX access_grant_user_idx ON access_grant (api_key_id, organization_id, user_id)');
    await db.query('DROP INDEX comment_annotation_author_idx');
    await db.query('DROP INDEX judgment_reviewer_recent_idx');
    await db.query('DROP INDEX judgment_organization_recent_idx');
  }
}
