import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Observers } from '../common/observers.js';

/** A document of one organization taking a new id (`organizations/documents/migrate`). */
export interface DocumentMove {
  organizationId: string;
  /** The id it had. */
  from: string;
  /** The id it has now; no document had it before the move. */
  to: string;
}

/**
 * What other modules learn of a document taking a new id, inside the moving transaction: each
 * moves the rows it owns about the document (grants, threads, notifications, activities,
 * editors, …), so they all follow it, or none does. The document rows of both ids exist while
 * observers run (the old one is deleted after them), so rows tied to a document by a foreign
 * key can be moved by an UPDATE.
 */
export interface DocumentMoveObserver {
  documentMoved(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void>;
}

/**
 * Where directory announces document moves, as `DirectoryDeletes` announces deletes: the owners
 * of rows about documents register at start-up, so directory imports none of them.
 */
@Injectable()
export class DocumentMoves {
  /** Modules register here at start-up to move their rows with every document that moves. */
  readonly observers = new Observers<DocumentMoveObserver>();

  /** Tells every observer of the move, in `manager`'s transaction. */
  async announce(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void> {
    await this.observers.notify((observer) => observer.documentMoved(manager, apiKeyId, move));
  }
}
