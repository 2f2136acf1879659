import type { Logger } from '@nestjs/common';
import type { Clock } from '../common/clock.js';
import type { Transactions, WorkerConnection } from '../database/transactions.js';
import type { OutboxStore } from './outbox-store.js';

/** Messages past their retention are deleted a minute or two after start, then hourly, in batches. */
const PRUNE_FIRST_MS = 60_000;
const PRUNE_MS = 60 * 60 * 1000;
const PRUNE_BATCH = 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** What the outbox pruner needs of the service. */
export interface OutboxPrunerDeps {
  store: OutboxStore;
  transactions: Transactions;
  clock: Clock;
  logger: Logger;
}

/**
 * The delivery worker's pruning: deletes settled messages past `DELIVERY_RETENTION_DAYS`, a
 * batch at a time, on the worker's outcome connection (instances sharing a database each do
 * it, passing by what another is deleting). Starts at a random moment in the first two minutes,
 * so instances started together do not prune together.
 */
export class OutboxPruner {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly deps: OutboxPrunerDeps,
    private readonly retentionDays: number,
    private readonly connection: () => WorkerConnection | undefined,
  ) {}

  start(): void {
    this.running = true;
    if (this.retentionDays <= 0) return;
    this.timer = setTimeout(
      () => {
        void this.prune();
        this.timer = setInterval(() => void this.prune(), PRUNE_MS).unref();
      },
      PRUNE_FIRST_MS * (1 + Math.random()),
    ).unref();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  /** Deletes what is past its retention now; answers how many messages went. */
  async prune(): Promise<number> {
    const { store, transactions, clock, logger } = this.deps;
    const before = clock.now() - this.retentionDays * DAY_MS;
    let pruned = 0;
    try {
      for (;;) {
        const deleted = await transactions.run((manager) => store.prune(manager, before, PRUNE_BATCH), this.connection());
        pruned += deleted;
        if (deleted < PRUNE_BATCH || !this.running) break;
      }
      if (pruned) logger.log({ pruned, retentionDays: this.retentionDays }, 'Settled webhook messages past their retention deleted');
    } catch (error) {
      logger.warn({ err: error }, 'Deleting old webhook messages failed; trying again next hour');
    }
    return pruned;
  }
}
