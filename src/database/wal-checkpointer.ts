import { stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { embeddedConnection } from './sql.js';

/** How often the worker looks for log frames to copy, and, until it runs, how often the log is looked at for writes. */
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
 *
 * The worker starts with the first write after start-up, not with the service: a worker thread
 * is a second JavaScript engine, about 5-6 MB resident, and an instance that only reads (or
 * waits) has no log to copy. Until then the connection checkpoints by itself as SQLite does.
 */
@Injectable()
export class WalCheckpointer implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('WalCheckpointer');
  private worker: Worker | undefined;
  /** Looks at the log file until the first write, then starts the worker. */
  private watch: NodeJS.Timeout | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;
  /** The latest checkpoint that found frames in the log. */
  latest: CheckpointReport | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.dialect !== 'sqlite' || this.config.database === ':memory:') return;
    // Start-up's own writes (migrations) are in the log already: a write is a change of the
    // file's size or modification time from here on.
    const log = `${this.config.database}-wal`;
    const before = await logStamp(log);
    this.watch = setInterval(() => {
      void logStamp(log).then((now) => {
        if (now === before || !this.watch) return;
        this.stopWatching();
        this.starting = this.start().finally(() => (this.starting = undefined));
      });
    }, INTERVAL_MS).unref();
  }

  /** Resolves once the worker has its connection (or has failed: checkpoints then run inline). */
  private async start(): Promise<void> {
    const worker = new Worker(new URL('./wal-checkpoint.worker.js', import.meta.url), {
      workerData: { file: this.config.database, intervalMs: INTERVAL_MS, restartPages: RESTART_PAGES },
      // It only runs a pragma a few times a second (about 4 MB of heap): small generations keep
      // the thread's heap from growing to V8's defaults (about 5 MB less resident memory).
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    // Held referenced until it has started, so that a stop meanwhile waits for it.
    let started!: () => void;
    const ready = new Promise<void>((resolve) => (started = resolve)).then(() => worker.unref());
    worker.on('message', (message: ({ kind: 'checkpoint' } & CheckpointReport) | { kind: 'error'; message: string } | { kind: 'ready' }) => {
      if (message.kind === 'ready') {
        if (!this.stopping) this.setAutomaticCheckpoint(BACKSTOP_PAGES);
        started();
      } else if (message.kind === 'checkpoint') this.latest = { log: message.log, checkpointed: message.checkpointed, busy: message.busy };
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

  private stopWatching(): void {
    clearInterval(this.watch);
    this.watch = undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopWatching();
    this.stopping = true;
    await this.starting;
    const worker = this.worker;
    if (!worker) return;
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

/** The log file's size and modification time, which every write changes ('' while there is none). */
async function logStamp(file: string): Promise<string> {
  try {
    const { size, mtimeMs } = await stat(file);
    return `${size}:${mtimeMs}`;
  } catch {
    return '';
  }
}
