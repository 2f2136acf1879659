import type { QueryRunner } from 'typeorm';

/**
 * Jobs of `users/data/delete` (the privacy module): one row per request, scoped by its API key.
 * `tasks_left` is the JSON list of the modules whose erase has not committed yet, so a job cut
 * short by a restart resumes where it stopped. The user ids are cleared when the job completes
 * (a record of whom was erased would itself be data about them). Unfinished jobs are found
 * through a partial index, which stays small however many jobs are kept.
 */
export async function createUserDataJobs(db: QueryRunner, dialect: 'postgres' | 'sqlite'): Promise<void> {
  const big = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.query(`CREATE TABLE user_data_job (
    api_key_id varchar(24) NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
    id varchar(40) NOT NULL,
    user_ids text NOT NULL,
    organization_ids text,
    tasks_left text NOT NULL,
    tasks_count integer NOT NULL,
    last_task_completed_at ${big},
    created_at ${big} NOT NULL,
    completed_at ${big},
    PRIMARY KEY (api_key_id, id))`);
  await db.query('CREATE INDEX user_data_job_pending_idx ON user_data_job (created_at, id) WHERE completed_at IS NULL');
}

export async function dropUserDataJobs(db: QueryRunner): Promise<void> {
  await db.query('DROP TABLE user_data_job');
}
