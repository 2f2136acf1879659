import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * API-key revocation (admin CLI `apikey revoke`): when a key was revoked. A revoked key keeps its
 * row and its data, but has no auth tokens and is gone for every caller, as an unknown key is.
 */
export class ApiKeyRevocation1763970000000 implements MigrationInterface {
  name = 'ApiKeyRevocation1763970000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`ALTER TABLE api_key ADD COLUMN revoked_at ${d.bigint}`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE api_key DROP COLUMN revoked_at');
  }
}
