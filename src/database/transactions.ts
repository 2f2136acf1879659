import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { CommitGroups } from './commit-groups.js';
import { LazyUnit, lazyUnits } from './lazy-units.js';
import { embeddedConnection } from './sql.js';
import { runUnit } from './unit-of-work.js';

/**
 * A connection held by a background worker (PostgreSQL), so its units of work never queue
 * behind requests waiting for the pool; its units run one at a time. It connects when first
 * used, and again after a unit failed (the database restarted, say). On the embedded database
 * there is one connection anyway: units on this one take their turn with all the others, ahead
 * of the requests' units waiting (they are short, and a delivery should not queue behind a
 * burst of requests).
 */
export class WorkerConnection {
  /** The end of the last unit queued on it. */
  tail: Promise<unknown> = Promise.resolve();
  runner: QueryRunner | undefined;

  constructor(
    /** Commits do not wait for the disk (see `Transactions.workerConnection`). */
    readonly relaxedDurability: boolean,
  ) {}
}

/**
 * The one way to write. The embedded SQLite driver shares a single connection, so two
 * transactions, or a plain write issued while another request's transaction is open, would
 * interleave on it (and a rollback could undo someone else's write). On SQLite every unit of
 * work therefore runs in turn, one at a time, and units waiting together share one commit
 * (`CommitGroups`); on PostgreSQL each gets its own pooled connection and runs concurrently.
 */
@Injectable()
export class Transactions {
  /** Embedded database: units in turn, grouped into commits; undefined on PostgreSQL. */
  private readonly groups: CommitGroups | undefined;
  /** Callbacks `afterCommit` registered, by the unit of work's manager. */
  private readonly afterCommitCallbacks = new WeakMap<EntityManager, (() => void)[]>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    if (dataSource.options.type === 'better-sqlite3') {
      beginImmediately(dataSource);
      const connection = embeddedConnection(dataSource)!;
      this.groups = new CommitGroups(dataSource, () => connection.inTransaction);
    }
  }

  /**
   * Whether units of work run at the same time (PostgreSQL). On the embedded database they run
   * one at a time, so a lock a unit holds keeps no other unit waiting that would not wait anyway.
   */
  get concurrent(): boolean {
    return this.groups === undefined;
  }

  /**
   * Find options that lock the rows a unit of work reads before rewriting them, so two writers
   * merging into the same rows take turns (PostgreSQL `FOR UPDATE`). The embedded database runs
   * one unit at a time already, and TypeORM refuses the option there. `Sql.lockRows` is the same
   * for plain SQL.
   */
  get rowLock(): { lock?: { mode: 'pessimistic_write' } } {
    return this.groups ? {} : { lock: { mode: 'pessimistic_write' } };
  }

  /**
   * Runs `work` as one transaction: on a pooled connection, or on a worker's own (`on`). With
   * `atomic: false`, for work whose every statement stands on its own, PostgreSQL runs them
   * without BEGIN and COMMIT (two round trips fewer, and a statement's row locks end with it);
   * the embedded database runs it as one unit in turn, as any other. With `begin: 'lazily'`
   * (PostgreSQL, on a pooled connection), the transaction begins only when it must, and inserts
   * wait to go together (see `LazyUnit`): a unit that only reads and inserts is one statement.
   */
  run<T>(work: (manager: EntityManager) => Promise<T>, on?: WorkerConnection, options: { atomic?: boolean; begin?: 'lazily' } = {}): Promise<T> {
    if (this.groups) {
      // Embedded database: reads made by the work, however they are made, belong to its
      // transaction (`CommitGroups` marks them; see `EmbeddedReads`).
      return this.groups.run<T>((manager, callbacks) => {
        this.afterCommitCallbacks.set(manager, callbacks);
        return work(manager);
      }, on !== undefined);
    }
    const unit = async (): Promise<T> => {
      const callbacks: (() => void)[] = [];
      const inTransaction = (manager: EntityManager) => {
        this.afterCommitCallbacks.set(manager, callbacks);
        // Reads the work makes through `Sql`, however deep, run on this unit's connection.
        return runUnit(manager, () => work(manager));
      };
      let result: T;
      if (on) {
        const runner = await this.connected(on);
        try {
          // A manager bound to a query runner runs its transaction (or statements) on that runner.
          result = options.atomic === false ? await inTransaction(runner.manager) : await runner.manager.transaction(inTransaction);
        } catch (error) {
          // The connection may be what failed: the next unit starts on a new one.
          await this.disconnect(on);
          throw error;
        }
      } else if (options.begin === 'lazily' && options.atomic !== false) {
        result = await this.lazily(inTransaction);
      } else if (options.atomic === false) {
        const runner = this.dataSource.createQueryRunner();
        try {
          result = await inTransaction(runner.manager);
        } finally {
          await runner.release();
        }
      } else {
        result = await this.dataSource.transaction(inTransaction);
      }
      for (const callback of callbacks) callback();
      return result;
    };
    if (!on) return unit();
    const result = on.tail.then(unit);
    on.tail = result.catch(() => undefined);
    return result;
  }

  /** Runs a unit of work whose transaction begins lazily (see `LazyUnit`), on a pooled connection. */
  private async lazily<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    const lazy = new LazyUnit(runner);
    lazyUnits.set(runner, lazy);
    // TypeORM's own statements on the runner (its repositories, query builder, BEGIN and COMMIT)
    // pass the unit first: anything but the unit's own begins its transaction.
    const query = runner.query.bind(runner);
    runner.query = (async (...args: Parameters<QueryRunner['query']>) => {
      await lazy.before();
      return query(...args);
    }) as QueryRunner['query'];
    try {
      const result = await work(runner.manager);
      await lazy.finish();
      return result;
    } catch (error) {
      await lazy.abandon().catch(() => undefined);
      throw error;
    } finally {
      lazyUnits.delete(runner);
      await runner.release();
    }
  }

  /**
   * A connection of its own for a background worker (see `WorkerConnection`); `release` it when
   * done. With `relaxedDurability`, its commits do not wait for the disk (PostgreSQL
   * `synchronous_commit = off`): a database crash may forget its last moments of work, never
   * break consistency. Only for bookkeeping that a redo makes good, such as delivery claims.
   */
  workerConnection(options: { relaxedDurability?: boolean } = {}): WorkerConnection {
    return new WorkerConnection(options.relaxedDurability === true);
  }

  /** Gives a worker's connection back to the pool once its last unit of work ended. */
  async release(connection: WorkerConnection): Promise<void> {
    await connection.tail;
    await this.disconnect(connection);
  }

  private async connected(connection: WorkerConnection): Promise<QueryRunner> {
    if (connection.runner && !connection.runner.isReleased) return connection.runner;
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    if (connection.relaxedDurability) await runner.query('SET synchronous_commit = off');
    connection.runner = runner;
    return runner;
  }

  /** Back to the pool as the pool handed it out: durable commits again for whoever comes next. */
  private async disconnect(connection: WorkerConnection): Promise<void> {
    const runner = connection.runner;
    connection.runner = undefined;
    if (!runner || runner.isReleased) return;
    if (connection.relaxedDurability) await runner.query('RESET synchronous_commit').catch(() => undefined);
    await runner.release().catch(() => undefined);
  }

  /**
   * Runs `callback` once the unit of work of `manager` has committed, and never when it rolls
   * back: what it announces (new outbox rows, say) is visible to every connection by then.
   */
  afterCommit(manager: EntityManager, callback: () => void): void {
    const callbacks = this.afterCommitCallbacks.get(manager);
    if (!callbacks) throw new Error('Transactions.afterCommit needs the manager of a unit of work of Transactions.run');
    callbacks.push(callback);
  }
}

/**
 * Embedded database: units of work take the write lock when they begin (`BEGIN IMMEDIATE`),
 * waiting for it through the busy timeout. A deferred transaction that has read would have to
 * upgrade when it first writes, and SQLite answers such an upgrade SQLITE_BUSY at once, without
 * waiting, if another connection holds the lock at that moment (the checkpoint worker does,
 * briefly, when it restarts the log). Units run one at a time, so taking the lock early costs
 * nothing.
 */
function beginImmediately(dataSource: DataSource): void {
  const runner = dataSource.driver.createQueryRunner('master') as unknown as { query: (query: string, ...rest: unknown[]) => Promise<unknown> };
  const query = runner.query.bind(runner);
  runner.query = (text: string, ...rest: unknown[]) => query(text === 'BEGIN TRANSACTION' ? 'BEGIN IMMEDIATE TRANSACTION' : text, ...rest);
}
