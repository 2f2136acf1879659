import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addUpstreamFields, dropUpstreamFields } from '../shared/1763850000000-upstream-fields.js';

/** Judgment facets and the CRDT writer's session (see the shared migration). */
export class UpstreamFields1763850000000 implements MigrationInterface {
  name = 'UpstreamFields1763850000000';

  async up(db: QueryRunner): Promise<void> {
    await addUpstreamFields(db);
  }

  async down(db: QueryRunner): Promise<void> {
    await dropUpstreamFields(db);
  }
}
