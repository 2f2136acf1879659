import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newSortableId } from '../common/ids.js';
import { Sql } from '../database/sql.js';
import { ERASE_TASKS, type EraseScope, type EraseTask } from './user-erasure.js';

/** A job as `users/data/delete/status` reports it. */
export interface DeletionStatus {
  isDeleteCompleted: boolean;
  tasksLeft: number;
  /** Epoch ms of the last task that committed; null before the first. */
  lastTaskCompletedTime: number | null;
}

/** An unfinished job as the worker claims it. */
export interface ClaimedJob {
  scope: EraseScope;
  tasksLeft: EraseTask[];
}

interface JobRow {
  user_ids: string;
  organization_ids: string | null;
  tasks_left: string;
  tasks_count: number | string;
  last_task_completed_at: number | string | null;
  completed_at: number | string | null;
}

/**
 * The owner of `user_data_job`: every statement is scoped by the job's API key. Plain SQL: a job
 * is claimed with `Sql.claimable` (PostgreSQL's `SKIP LOCKED`), and its lists are JSON text read here.
 */
@Injectable()
export class DeletionJobStore {
  constructor(private readonly sql: Sql) {}

  /** A new job with every module's task left; its id. */
  async create(
    manager: EntityManager,
    apiKeyId: string,
    userIds: string[],
    organizationIds: string[] | undefined,
    now: number,
  ): Promise<{ jobId: string; tasksCount: number }> {
    const jobId = newSortableId('job_');
    await this.sql.insert(
      manager,
      'user_data_job',
      ['api_key_id', 'id', 'user_ids', 'organization_ids', 'tasks_left', 'tasks_count', 'last_task_completed_at', 'created_at', 'completed_at'],
      [
        [
          apiKeyId,
          jobId,
          JSON.stringify(userIds),
          organizationIds ? JSON.stringify(organizationIds) : null,
          JSON.stringify(ERASE_TASKS),
          ERASE_TASKS.length,
          null,
          now,
          null,
        ],
      ],
    );
    return { jobId, tasksCount: ERASE_TASKS.length };
  }

  /** The job's progress, or undefined when the key has no such job. */
  async status(apiKeyId: string, jobId: string): Promise<DeletionStatus | undefined> {
    const [row] = await this.sql.rows<JobRow>(
      'SELECT tasks_left, last_task_completed_at, completed_at FROM user_data_job WHERE api_key_id = :apiKeyId AND id = :jobId',
      { apiKeyId, jobId },
    );
    if (!row) return undefined;
    return {
      isDeleteCompleted: row.completed_at !== null,
      tasksLeft: (JSON.parse(row.tasks_left) as string[]).length,
      lastTaskCompletedTime: row.last_task_completed_at === null ? null : Number(row.last_task_completed_at),
    };
  }

  /** Unfinished jobs of every key, oldest first. */
  async unfinished(limit: number): Promise<{ apiKeyId: string; jobId: string }[]> {
    const rows = await this.sql.rows<{ api_key_id: string; id: string }>(
      'SELECT api_key_id, id FROM user_data_job WHERE completed_at IS NULL ORDER BY created_at, id LIMIT :limit',
      { limit },
    );
    return rows.map((row) => ({ apiKeyId: row.api_key_id, jobId: row.id }));
  }

  /**
   * The job, locked for this unit of work, or undefined when it is finished or another worker
   * holds it (PostgreSQL `SKIP LOCKED`: instances sharing the database never run one job at once;
   * the embedded database runs one unit at a time).
   */
  async claim(manager: EntityManager, apiKeyId: string, jobId: string): Promise<ClaimedJob | undefined> {
    const [row] = await this.sql.run<JobRow>(
      manager,
      this.sql.claimable(
        'SELECT user_ids, organization_ids, tasks_left FROM user_data_job WHERE api_key_id = :apiKeyId AND id = :jobId AND completed_at IS NULL',
      ),
      { apiKeyId, jobId },
    );
    if (!row) return undefined;
    return {
      scope: {
        apiKeyId,
        userIds: JSON.parse(row.user_ids) as string[],
        organizationIds: row.organization_ids === null ? null : (JSON.parse(row.organization_ids) as string[]),
      },
      tasksLeft: JSON.parse(row.tasks_left) as EraseTask[],
    };
  }

  /**
   * Records the tasks still left after one committed (in its unit of work). The last one
   * completes the job and clears whom it was about.
   */
  async taskDone(manager: EntityManager, apiKeyId: string, jobId: string, tasksLeft: EraseTask[], now: number): Promise<void> {
    // After the last task the job keeps no user ids; it is marked completed by `completed`.
    const done = tasksLeft.length === 0;
    await this.sql.run(
      manager,
      `UPDATE user_data_job SET tasks_left = :tasksLeft, last_task_completed_at = :now${done ? ", user_ids = '[]', organization_ids = NULL" : ''}
        WHERE api_key_id = :apiKeyId AND id = :jobId`,
      { apiKeyId, jobId, tasksLeft: JSON.stringify(tasksLeft), now },
    );
  }

  /** The job is over: every task done and what it erased gone from disk too (the embedded database's log emptied). */
  async completed(manager: EntityManager, apiKeyId: string, jobId: string, now: number): Promise<void> {
    await this.sql.run(manager, 'UPDATE user_data_job SET completed_at = :now WHERE api_key_id = :apiKeyId AND id = :jobId', { apiKeyId, jobId, now });
  }
}
