import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dialectOf } from './dialect.js';

/**
 * Jobs of `users/data/delete` (the privacy module): one row per request, scoped by its API key.
 * `tasks_left` is the JSON list of the modules whose erase has not committed yet, so a job cut
 * short by a restart resumes where it stopped. The user ids are cleared when the job completes
 * (a record of whom was erased would itself be data about them). Unfinished jobs are found
 * through a partial index, which stays small however many jobs are kept.
 */
export class UserDataJobs1763860000000 implements MigrationInterface {
  name = 'UserDataJobs1763860000000';

  async up(db: QueryRunner): Promise<void> {
    const d = dialectOf(db);
    await db.query(`CREATE TABLE user_data_job (
      api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
      id varchar(40) NOT NULL,
      user_ids text NOT NULL,
      organization_ids text,
      tasks_left text NOT NULL,
      tasks_count integer NOT NULL,
      last_task_completed_at ${d.bigint},
      created_at ${d.bigint} NOT NULL,
      completed_at ${d.bigint},
      PRIMARY KEY (api_key_id, id))`);
    await db.query('CREATE INDEX user_data_job_pending_idx ON user_data_job (created_at, id) WHERE completed_at IS NULL');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE user_data_job');
  }
}
