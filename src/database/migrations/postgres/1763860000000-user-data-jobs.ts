import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createUserDataJobs, dropUserDataJobs } from '../shared/1763860000000-user-data-jobs.js';

/** Jobs of user-data deletion (see the shared migration): one schema, written once for both dialects. */
export class UserDataJobs1763860000000 implements MigrationInterface {
  name = 'UserDataJobs1763860000000';

  async up(db: QueryRunner): Promise<void> {
    await createUserDataJobs(db, 'postgres');
  }

  async down(db: QueryRunner): Promise<void> {
    await dropUserDataJobs(db);
  }
}
