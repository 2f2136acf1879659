import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutbox, dropOutbox } from '../shared/1763840000000-outbox.js';

/** The event outbox (see the shared migration): one schema, written once for both dialects. */
export class Outbox1763840000000 implements MigrationInterface {
  name = 'Outbox1763840000000';

  async up(db: QueryRunner): Promise<void> {
    await createOutbox(db, 'postgres');
  }

  async down(db: QueryRunner): Promise<void> {
    await dropOutbox(db);
  }
}
