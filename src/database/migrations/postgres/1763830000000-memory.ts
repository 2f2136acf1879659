import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Judgments (contract part 8), one per decision activity, with their text as an English
 * `tsvector` (stemmed, stop words dropped) under a GIN index, ranked by `ts_rank_cd`.
 * `scope_tokens` serves the embedded engine's index only; here b-tree indexes scope a search.
 */
export class Memory1763830000000 implements MigrationInterface {
  name = 'Memory1763830000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE judgment (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      activity_id varchar(256) NOT NULL,
      document_id varchar(256) NOT NULL,
      decision varchar(32) NOT NULL,
      side varchar(8),
      reviewer_id varchar(256) NOT NULL,
      reason text,
      text text NOT NULL,
      scope_tokens text NOT NULL,
      timestamp bigint NOT NULL,
      text_vector tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
      PRIMARY KEY (api_key_id, organization_id, activity_id),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE)`);
    await db.query('CREATE INDEX judgment_recent_idx ON judgment (api_key_id, timestamp)');
    await db.query('CREATE INDEX judgment_document_idx ON judgment (api_key_id, organization_id, document_id, timestamp)');
    await db.query('CREATE INDEX judgment_text_idx ON judgment USING GIN (text_vector)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE judgment');
  }
}
