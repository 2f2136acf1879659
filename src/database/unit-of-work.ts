import { ScopedStorage } from './scoped-storage.js';
import type { EntityManager } from 'typeorm';

/**
 * One run of a unit of work (`Transactions.run`, a unit of a commit group, the migrations): its
 * manager (none for migrations), and an object of its own for every run, so what a run keeps
 * (`ApiKeyStore`'s key rows) ends with it. Managers are no such key: every unit on one worker
 * connection has the same manager (its query runner's).
 */
export interface UnitRun {
  readonly manager?: EntityManager;
}

/**
 * Marks the work of a unit of work across its awaits: what runs inside it is part of its
 * transaction, reads included (`Sql.rows` runs them on the unit's connection).
 */
export const unitOfWork = new ScopedStorage<UnitRun>();

/** Runs `work` as a new run of a unit of work on `manager` (none: the migrations). */
export function runUnit<T>(manager: EntityManager | undefined, work: () => T): T {
  return unitOfWork.run(manager ? { manager } : {}, work);
}

/** Whether the caller runs inside a unit of work. */
export function inUnitOfWork(): boolean {
  return currentUnit() !== undefined;
}

/** The manager of the unit of work the caller runs in, if it has one. */
export function unitManager(): EntityManager | undefined {
  return unitOfWork.getStore()?.manager;
}

/** The run of the unit of work the caller runs in, if any: a key for what that run keeps. */
export function currentUnit(): UnitRun | undefined {
  return unitOfWork.getStore();
}
