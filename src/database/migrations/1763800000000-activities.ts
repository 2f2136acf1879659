import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * The activity log (contract 6.1). The columns a filter or the order reads are columns of their
 * own; everything else the caller sent is one JSON object in `body`, returned without parsing.
 * Each filter has an index ending in the page order (timestamp, id), so every page is one range
 * read whatever its depth.
 */
export class Activities1763800000000 implements MigrationInterface {
  name = 'Activities1763800000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE activity (
      api_key_id varchar(24) NOT NULL,
      organization_id varchar(256) NOT NULL,
      id varchar(256) NOT NULL,
      document_id varchar(256) NOT NULL,
      feature_type varchar(16) NOT NULL,
      action_type varchar(256) NOT NULL,
      action_user_id varchar(256) NOT NULL,
      target_entity_id varchar(256),
      timestamp ${d.bigint} NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, id),
      FOREIGN KEY (api_key_id, organization_id) REFERENCES organization(api_key_id, id) ON DELETE CASCADE)`);
    await db.query(`CREATE INDEX activity_page_idx ON activity (api_key_id, organization_id, timestamp, id)`);
    await db.query(`CREATE INDEX activity_document_idx ON activity (api_key_id, organization_id, document_id, timestamp, id)`);
    await db.query(`CREATE INDEX activity_target_idx ON activity (api_key_id, organization_id, target_entity_id, timestamp, id)`);
    await db.query(`CREATE INDEX activity_user_idx ON activity (api_key_id, organization_id, action_user_id, timestamp, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE activity');
  }
}
