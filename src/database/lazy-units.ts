import { ScopedStorage } from './scoped-storage.js';
import type { QueryRunner } from 'typeorm';

/** An insert waiting in a lazy unit, as far as the unit is concerned: the table it goes to. */
export interface WaitingInsert {
  readonly table: string;
}

/** Marks the statements a lazy unit sends itself (BEGIN, what waits, COMMIT): they do not wait for it. */
const ownStatements = new ScopedStorage<true>();

/**
 * A unit of work on PostgreSQL whose transaction begins lazily (`Transactions.run` with
 * `begin: 'lazily'`). Its inserts (`Sql.insert`, `Sql.insertAll`) wait and go together, as one
 * statement; its plain reads run as they come, on the unit's connection, outside a transaction
 * while nothing waits and nothing has begun one (under READ COMMITTED a statement sees what was
 * committed when it starts, in a transaction or not). Any other statement, or a read once
 * inserts wait, first begins the transaction and writes what waits, so the unit reads its own
 * writes and stays all or none. A unit whose writes are all inserts is thus one statement, atomic
 * by itself, with no BEGIN and COMMIT: on PostgreSQL each round trip costs the service a socket
 * write and the database a wake-up, and a notifying comment add was nine of them.
 */
export class LazyUnit {
  /** Inserts waiting (`Sql`'s; only their tables matter here). */
  private readonly pending: WaitingInsert[] = [];
  private begun = false;
  /** The beginning (and writing what waits) under way: other statements wait for it. */
  private gate: Promise<void> | undefined;
  /** Writes inserts at once on the runner (`Sql.insertAll`, which defers them). */
  private writer: ((runner: QueryRunner, inserts: WaitingInsert[]) => Promise<void>) | undefined;

  constructor(private readonly runner: QueryRunner) {}

  /** Whether `insert` waits here: not when it is the unit's own writing of what waited. */
  takes(): boolean {
    return !ownStatements.getStore();
  }

  defer<I extends WaitingInsert>(inserts: readonly I[], writer: (runner: QueryRunner, inserts: I[]) => Promise<void>): void {
    // Every insert that waits comes from the one writer that defers them (`Sql`'s).
    this.writer = writer as (runner: QueryRunner, inserts: WaitingInsert[]) => Promise<void>;
    this.pending.push(...inserts);
  }

  /**
   * Before a statement on the unit's connection (`text`, when `Sql` sends it). A plain read of
   * tables none of the waiting inserts go to runs as it is; anything else begins the transaction
   * and writes what waits first.
   */
  async before(text?: string): Promise<void> {
    if (ownStatements.getStore()) return;
    while (this.gate) await this.gate;
    const readsAside = text !== undefined && isPlainRead(text) && !this.pending.some((insert) => mentions(text, insert.table));
    if (readsAside || (this.begun && !this.pending.length)) return;
    this.gate = ownStatements.run(true, () => this.beginAndWrite()).finally(() => (this.gate = undefined));
    await this.gate;
  }

  /** At the unit's end: what waits goes (as one statement when nothing began a transaction), and a begun transaction commits. */
  async finish(): Promise<void> {
    while (this.gate) await this.gate;
    await ownStatements.run(true, async () => {
      if (this.pending.length) await this.writer!(this.runner, this.pending.splice(0));
      if (this.begun) await this.runner.commitTransaction();
    });
  }

  /** The unit failed: a begun transaction rolls back, and what waits never goes. */
  async abandon(): Promise<void> {
    this.pending.length = 0;
    if (this.begun && this.runner.isTransactionActive) await ownStatements.run(true, () => this.runner.rollbackTransaction());
  }

  private async beginAndWrite(): Promise<void> {
    if (!this.begun) {
      await this.runner.startTransaction();
      this.begun = true;
    }
    if (this.pending.length) await this.writer!(this.runner, this.pending.splice(0));
  }
}

/** The lazy unit each runner serves, while it does. */
export const lazyUnits = new WeakMap<QueryRunner, LazyUnit>();

/** Whether a statement only reads, taking no lock (a plain `SELECT`). */
function isPlainRead(text: string): boolean {
  return /^\s*SELECT\b/i.test(text) && !/\bFOR\s+(UPDATE|NO\s+KEY\s+UPDATE|SHARE|KEY\s+SHARE)\b/i.test(text) && !/pg_advisory/i.test(text);
}

/** Whether `text` names `table` (as a whole word: `comment` is not in `comment_mention`); a read that does not cannot see its rows. */
function mentions(text: string, table: string): boolean {
  return new RegExp(`\\b${table}\\b`, 'i').test(text);
}
