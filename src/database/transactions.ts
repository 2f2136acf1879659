import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * The one way to write. The embedded SQLite driver shares a single connection, so two
 * transactions, or a plain write issued while another request's transaction is open, would
 * interleave on it (and a rollback could undo someone else's write). On SQLite every unit of
 * work therefore runs under one process-wide lock; on PostgreSQL each gets its own pooled
 * connection and runs concurrently.
 */
@Injectable()
export class Transactions {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly serialise: boolean;
  /** Callbacks `afterCommit` registered, by the unit of work's manager. */
  private readonly afterCommitCallbacks = new WeakMap<EntityManager, (() => void)[]>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.serialise = dataSource.options.type === 'better-sqlite3';
  }

  /**
   * Find options that lock the rows a unit of work reads before rewriting them, so two writers
   * merging into the same rows take turns (PostgreSQL `FOR UPDATE`). The embedded database runs
   * one unit at a time already, and TypeORM refuses the option there. `Sql.lockRows` is the same
   * for plain SQL.
   */
  get rowLock(): { lock?: { mode: 'pessimistic_write' } } {
    return this.serialise ? {} : { lock: { mode: 'pessimistic_write' } };
  }

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const unit = async (): Promise<T> => {
      const callbacks: (() => void)[] = [];
      const result = await this.dataSource.transaction((manager) => {
        this.afterCommitCallbacks.set(manager, callbacks);
        return work(manager);
      });
      for (const callback of callbacks) callback();
      return result;
    };
    if (!this.serialise) return unit();
    const result = this.tail.then(unit);
    this.tail = result.catch(() => undefined);
    return result;
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
