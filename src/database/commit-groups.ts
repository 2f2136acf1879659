import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { runUnit } from './unit-of-work.js';

/** The most units one commit takes, and how long a group keeps taking more (ms). */
const GROUP_LIMITS = { units: 64, milliseconds: 20 } as const;

/** A unit of work waiting for its turn on the embedded database. */
interface Waiting {
  /** A background worker's unit: it goes before the requests' units waiting. */
  worker: boolean;
  /** The unit's work; `callbacks` collects what it asks to run once committed. */
  work: (manager: EntityManager, callbacks: (() => void)[]) => Promise<unknown>;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

/** A unit that ran to its end in the open group: answered once the group commits. */
interface Ran {
  unit: Waiting;
  result: unknown;
  callbacks: (() => void)[];
}

/**
 * Group commit for the embedded database, where units of work take turns on its one connection.
 * When several units are waiting, they run one after another inside one transaction, each in a
 * savepoint of its own, and one COMMIT ends them all: a commit writes every page the transaction
 * changed to the log, and units writing the same tables and indexes share those pages, so a
 * group costs a fraction of its units committed apart. Nothing else changes for a unit:
 * - it runs alone on the connection, and sees the writes of the units before it (as it would
 *   once they had committed);
 * - a unit that fails rolls back to its savepoint, so its writes go and the others' stay;
 * - its caller hears of it, and its `afterCommit` callbacks run, only once the group committed
 *   (a reader elsewhere never sees an uncommitted row, and no answer tells of one);
 * - when nothing else waits, a unit commits alone at once (no unit waits for company).
 * If the commit itself fails, or a failure ends the whole transaction (SQLite rolls back by
 * itself on a full disk or an I/O error), every unit of the group fails with that error.
 */
export class CommitGroups {
  private readonly waiting: Waiting[] = [];
  private busy = false;

  constructor(
    private readonly dataSource: DataSource,
    /** Whether the connection has a transaction open (SQLite's own view, which a failure may have ended). */
    private readonly transactionOpen: () => boolean,
  ) {}

  /** Runs `work` in turn, inside a group's transaction; settles once the group has committed. */
  run<T>(work: Waiting['work'], worker: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const unit: Waiting = { worker, work, resolve: resolve as (result: unknown) => void, reject };
      const position = worker ? this.waiting.findIndex((waiting) => !waiting.worker) : -1;
      if (position === -1) this.waiting.push(unit);
      else this.waiting.splice(position, 0, unit);
      this.next();
    });
  }

  private next(): void {
    if (this.busy || !this.waiting.length) return;
    this.busy = true;
    // The group starts on the next turn of the event loop, once requests already received have
    // run up to their own unit and joined the queue: a busy service commits in groups, an idle
    // one waits a few microseconds.
    void new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.runGroup())
      .finally(() => {
        this.busy = false;
        this.next();
      });
  }

  private async runGroup(): Promise<void> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
    } catch (error) {
      // The write lock did not come within the busy timeout: the first unit fails, the rest try again.
      this.waiting.shift()!.reject(error);
      return;
    }
    const ran: Ran[] = [];
    const started = Date.now();
    let unit: Waiting | undefined;
    while (ran.length < GROUP_LIMITS.units && Date.now() - started < GROUP_LIMITS.milliseconds && (unit = this.waiting.shift())) {
      const callbacks: (() => void)[] = [];
      const work = unit.work;
      try {
        // Nested in the group's transaction, TypeORM runs the unit in a savepoint.
        const result = await this.dataSource.transaction((manager) => runUnit(manager, () => work(manager, callbacks)));
        ran.push({ unit, result, callbacks });
      } catch (error) {
        unit.reject(error);
        if (!this.transactionOpen()) return this.lost(runner, ran, error);
      }
    }
    try {
      await runner.commitTransaction();
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      return this.lost(runner, ran, error);
    }
    for (const { unit: committed, result, callbacks } of ran) {
      for (const callback of callbacks) callback();
      committed.resolve(result);
    }
  }

  /** The group's transaction ended without committing: its units fail, and the connection is left with no transaction. */
  private lost(runner: QueryRunner, ran: Ran[], error: unknown): void {
    // TypeORM's bookkeeping still counts the transaction SQLite already ended.
    Object.assign(runner, { isTransactionActive: false, transactionDepth: 0 });
    for (const { unit } of ran) unit.reject(error);
  }
}
