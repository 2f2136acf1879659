import { ScopedStorage } from './scoped-storage.js';
import type { EntityManager } from 'typeorm';

/**
 * Marks the work of a unit of work (`Transactions.run`) across its awaits, holding the unit's
 * manager (`true` for migrations, which have none): what runs inside it is part of its
 * transaction, reads included (`Sql.rows` runs them on the unit's connection).
 */
export const unitOfWork = new ScopedStorage<EntityManager | true>();

/** Whether the caller runs inside a unit of work. */
export function inUnitOfWork(): boolean {
  return unitOfWork.getStore() !== undefined;
}

/** The manager of the unit of work the caller runs in, if it has one. */
export function unitManager(): EntityManager | undefined {
  const unit = unitOfWork.getStore();
  return unit === true ? undefined : unit;
}
