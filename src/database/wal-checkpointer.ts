import { Worker } from 'node:worker_threads';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { embeddedConnection } from './sql.js';

/** How often the worker looks for log frames to copy. */
const INTERVAL_MS = 250;
/**
 * The embedded connection's own automatic checkpoint, kept as a backstop at ~40 MB of log (4 KiB
 * pages): it only fires if the worker falls that far behind or is gone.
 */
const BACKSTOP_PAGES = 10_000;
/** SQLite's default, restored if the worker stops unasked. */
const DEFAULT_PAGES = 1_000;
/** A log copied in full is started over by the worker once it is this long (~16 MB). */
const RESTART_PAGES = 4_000;

export interface CheckpointReport {
  /** Frames in the write-ahead log, and how many of them are now in the database file. */
  log: number;
  checkpointed: number;
  busy: number;
}

/**
 * On a file-backed embedded database, checkpoints of the write-ahead log run in a worker thread.
 * SQLite otherwise runs them inside the commit that crosses 1,000 log pages, on the event loop:
 * under a steady write load that was a quarter of the service's time (measured by the activity
 * seeding of `npm run bench`), and it stalled every request waiting behind that commit.
 */
@Injectable()
export class WalCheckpointer implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('WalCheckpointer');
  private worker: Worker | undefined;
  private stopping = false;
  /** The latest checkpoint that found frames in the log. */
  latest: CheckpointReport | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** Resolves once the worker has its connection (or has failed: checkpoints then run inline), so start-up ends with it running. */
  async onModuleInit(): Promise<void> {
    if (this.config.dialect !== 'sqlite' || this.config.database === ':memory:') return;
    this.setAutomaticCheckpoint(BACKSTOP_PAGES);
    const worker = new Worker(new URL('./wal-checkpoint.worker.js', import.meta.url), {
      workerData: { file: this.config.database, intervalMs: INTERVAL_MS, restartPages: RESTART_PAGES },
      // It only runs a pragma a few times a second (about 4 MB of heap): small generations keep
      // the thread's heap from growing to V8's defaults (about 5 MB less resident memory).
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    // Held referenced until it has started: nothing else may be keeping the process alive yet.
    let started!: () => void;
    const ready = new Promise<void>((resolve) => (started = resolve)).then(() => worker.unref());
    worker.on('message', (message: ({ kind: 'checkpoint' } & CheckpointReport) | { kind: 'error'; message: string } | { kind: 'ready' }) => {
      if (message.kind === 'ready') started();
      else if (message.kind === 'checkpoint') this.latest = { log: message.log, checkpointed: message.checkpointed, busy: message.busy };
      else this.logger.warn({ error: message.message }, 'background checkpoint failed');
    });
    worker.on('error', (error) => this.logger.error({ err: error }, 'checkpoint worker failed'));
    worker.on('exit', () => {
      started();
      this.worker = undefined;
      if (this.stopping) return;
      // Without the worker, the connection checkpoints by itself again.
      this.logger.warn('checkpoint worker stopped; checkpoints run inline again');
      this.setAutomaticCheckpoint(DEFAULT_PAGES);
    });
    this.worker = worker;
    await ready;
  }

  async onApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.stopping = true;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ kind: 'stop' });
    const timeout = setTimeout(() => void worker.terminate(), 2000);
    await exited;
    clearTimeout(timeout);
  }

  /**
   * Copies the whole log into the database file and empties it (SQLite's TRUNCATE checkpoint),
   * so that rows erased from the database (their bytes zeroed there by `secure_delete`) are not
   * still in the log's older page images: run after each user-data erasure job. On the
   * connection the service writes with, between units of work (no snapshot of its own is open),
   * waiting for other readers up to its busy timeout; false when one still held an older
   * snapshot, and a later checkpoint empties the log. Nothing to do on PostgreSQL or in memory.
   */
  truncateLog(): boolean {
    if (this.config.dialect !== 'sqlite' || this.config.database === ':memory:') return true;
    const [result] = embeddedConnection(this.dataSource)!.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return result?.busy === 0;
  }

  private setAutomaticCheckpoint(pages: number): void {
    embeddedConnection(this.dataSource)!.pragma(`wal_autocheckpoint = ${pages}`);
  }
}
