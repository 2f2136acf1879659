import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Advanced webhook endpoints (contract part 3) and notification preferences (contract 6.4).
 * Preferences are stored by id and need no organization or document to exist; a
 * `document_id` of '' is the user's organization-level default. A null channel inherits.
 */
export class DeliverySettings1763820000000 implements MigrationInterface {
  name = 'DeliverySettings1763820000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE webhook_endpoint (
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      id varchar(40) NOT NULL,
      url text NOT NULL,
      description text,
      filter_types text,
      channels text,
      disabled boolean NOT NULL,
      rate_limit integer,
      uid varchar(256),
      metadata text,
      secret_enc text NOT NULL,
      created_at ${d.bigint} NOT NULL,
      updated_at ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, id),
      UNIQUE (api_key_id, uid))`);
    await db.query(`CREATE TABLE notification_preference (
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      organization_id varchar(256) NOT NULL,
      user_id varchar(256) NOT NULL,
      document_id varchar(256) NOT NULL,
      inbox varchar(4),
      email varchar(4),
      chat varchar(4),
      updated_at ${d.bigint} NOT NULL,
      PRIMARY KEY (api_key_id, organization_id, user_id, document_id))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE notification_preference');
    await db.query('DROP TABLE webhook_endpoint');
  }
}
