import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Answers remembered for `Idempotency-Key` (docs/reference/conventions.md): one row per caller's
 * scope (its API key or workspace), operation path and key. A row is inserted as "in flight"
 * (no status yet) before the operation runs, so the primary key lets one request of a key run
 * and refuses its concurrent duplicates; the answer (status and encrypted body) completes it.
 * `expires_at` is the in-flight lease, then the end of the answer's retention.
 */
export class IdempotentRequests1763960000000 implements MigrationInterface {
  name = 'IdempotentRequests1763960000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(
      `CREATE TABLE idempotent_request (
        scope varchar(80) NOT NULL,
        path varchar(128) NOT NULL,
        idempotency_key varchar(255) NOT NULL,
        request_hash varchar(64) NOT NULL,
        claim varchar(32) NOT NULL,
        status_code integer,
        answer text,
        created_at ${d.bigint} NOT NULL,
        expires_at ${d.bigint} NOT NULL,
        PRIMARY KEY (scope, path, idempotency_key)
      )`,
    );
    await db.query('CREATE INDEX idempotent_request_expiry_idx ON idempotent_request (expires_at)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE idempotent_request');
  }
}
