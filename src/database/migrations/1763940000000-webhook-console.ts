import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * What the console's webhook tools keep (issue 34): an endpoint's previous signing secret and
 * when it stops signing (secret rotation with an overlap window, during which deliveries carry
 * both signatures), and the start of each attempt's answer body, bounded, as Svix shows it.
 */
export class WebhookConsole1763940000000 implements MigrationInterface {
  name = 'WebhookConsole1763940000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query('ALTER TABLE webhook_endpoint ADD COLUMN previous_secret_enc text');
    await db.query(`ALTER TABLE webhook_endpoint ADD COLUMN previous_secret_until ${d.bigint}`);
    await db.query('ALTER TABLE delivery_attempt ADD COLUMN response_body text');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE delivery_attempt DROP COLUMN response_body');
    await db.query('ALTER TABLE webhook_endpoint DROP COLUMN previous_secret_until');
    await db.query('ALTER TABLE webhook_endpoint DROP COLUMN previous_secret_enc');
  }
}
