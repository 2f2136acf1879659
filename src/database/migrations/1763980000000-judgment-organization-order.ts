import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Judgments of one organization, newest first (`memory/judgments/query` with `organizationId`):
 * an index in exactly that order. The key-wide one (`api_key_id, timestamp`) made the query walk
 * every judgment of the key, newest first, until it had found `limit` of the organization's, and
 * then sort them for their tie-break: 44 ms for an organization of a few judgments beside one of
 * 100k on SQLite, where this index finds them at once and in order.
 */
export class JudgmentOrganizationOrder1763980000000 implements MigrationInterface {
  name = 'JudgmentOrganizationOrder1763980000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX judgment_organization_recent_idx ON judgment (api_key_id, organization_id, timestamp, activity_id)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX judgment_organization_recent_idx');
  }
}
