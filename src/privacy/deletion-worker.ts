import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { DrainReports } from '../common/drain-reports.js';
import { AppConfig } from '../config/app-config.js';
import { Transactions } from '../database/transactions.js';
import { WalCheckpointer } from '../database/wal-checkpointer.js';
import { DeletionJobStore } from './deletion-job-store.js';
import { UserErasure } from './user-erasure.js';

/** How often, and how far apart, emptying the log is tried after a job before leaving it to a later checkpoint. */
const LOG_EMPTYING_ATTEMPTS = 20;
const LOG_EMPTYING_PAUSE_MS = 50;
/** How often unfinished jobs are looked for: jobs of an instance that stopped, or a task that failed. */
const SWEEP_MS = 60_000;
/** Jobs read per look. */
const JOBS_PER_LOOK = 100;

/**
 * Runs user-data deletion jobs in the background: at start-up (jobs a stopped instance left
 * unfinished), when a job is created here, and every minute. A job runs its tasks in turn, each
 * in one transaction that claims the job, erases and records the task done, so a crash loses at
 * most the task under way, which runs again. With `DATA_DELETION_WORKER=false` this instance
 * runs none.
 */
@Injectable()
export class DeletionWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('DataDeletion');
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private sweep: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: AppConfig,
    private readonly jobs: DeletionJobStore,
    private readonly erasure: UserErasure,
    private readonly transactions: Transactions,
    private readonly checkpointer: WalCheckpointer,
    drain: DrainReports,
  ) {
    // Shutdown lets the task under way commit.
    drain.add('dataDeletionTasks', () => (this.running ? 1 : 0));
  }

  onApplicationBootstrap(): void {
    if (!this.config.dataDeletionWorker) return;
    this.stopped = false;
    this.sweep = setInterval(() => this.wake(), SWEEP_MS).unref();
    this.wake();
  }

  /** Runs unfinished jobs now (once more after the current run, if one is under way). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.runJobs()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'Looking for data deletion jobs failed; trying again shortly'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Lets the task under way commit, and starts no other. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweep);
    await this.running;
  }

  private async runJobs(): Promise<void> {
    for (;;) {
      const jobs = await this.jobs.unfinished(JOBS_PER_LOOK);
      let progressed = false;
      for (const { apiKeyId, jobId } of jobs) {
        try {
          while (!this.stopped && (await this.runTask(apiKeyId, jobId))) progressed = true;
        } catch (error) {
          // The job stays as it is, its task undone: the next sweep tries it again. Only the
          // message is logged: a query error carries its parameters, the very user ids erased.
          this.logger.warn({ jobId, error: (error as Error).message }, 'A data deletion task failed; it runs again at the next sweep');
        }
        if (this.stopped) return;
      }
      // Every job was run, held by another instance, or failed: the next look is the sweep's.
      if (!progressed || jobs.length < JOBS_PER_LOOK) return;
    }
  }

  /** Runs the job's next task; false when the job is finished or another instance holds it. */
  private async runTask(apiKeyId: string, jobId: string): Promise<boolean> {
    const ran = await this.transactions.run(async (manager) => {
      const job = await this.jobs.claim(manager, apiKeyId, jobId);
      if (!job) return undefined;
      const [task, ...left] = job.tasksLeft;
      if (task) await this.erasure.run(task, manager, job.scope);
      await this.jobs.taskDone(manager, apiKeyId, jobId, left, Date.now());
      return { finished: !left.length };
    });
    if (!ran) return false;
    if (ran.finished) {
      // The job reads as completed only once the log is emptied too, so nothing of the erased
      // data is left on disk when it says so. (The last task cleared the job's user ids.)
      await this.emptyLog(jobId);
      await this.transactions.run((manager) => this.jobs.completed(manager, apiKeyId, jobId, Date.now()));
      this.logger.log({ jobId }, 'Data deletion job completed');
    }
    return true;
  }

  /**
   * The embedded database's log still holds page images from before the erasure: it is copied
   * in and emptied, trying again for a moment while a reader holds an older snapshot (a read
   * answering meanwhile, the checkpoint thread). Crashing before the job is recorded completed
   * finds it again with no task left: it empties the log then.
   */
  private async emptyLog(jobId: string): Promise<void> {
    for (let attempt = 1; !this.checkpointer.truncateLog(); attempt++) {
      if (attempt === LOG_EMPTYING_ATTEMPTS) {
        this.logger.warn({ jobId }, 'The log could not be emptied after a data deletion job; a later checkpoint empties it');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, LOG_EMPTYING_PAUSE_MS));
    }
  }
}
