import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Observers } from '../common/observers.js';

/** Folders and documents of one organization just deleted, by id. */
export interface DeletedPlaces {
  folderIds: string[];
  documentIds: string[];
}

/**
 * What other modules learn of folder and document deletes, inside the deleting transaction, so
 * what they keep about those places (access's grants, comment threads, inbox notifications) goes
 * with them or not at all. Organization deletes need no notice: the schema cascades them to
 * every table keyed by the organization.
 */
export interface DirectoryObserver {
  placesDeleted(manager: EntityManager, apiKeyId: string, organizationId: string, deleted: DeletedPlaces): Promise<void>;
}

/**
 * Where directory announces deletes. Modules that keep data about folders and documents
 * register at start-up (`GrantStore`, `CommentStore`, `InboxStore`), so directory needs to
 * know none of them: they depend on directory, and this is how directory reaches them without
 * importing them.
 */
@Injectable()
export class DirectoryDeletes {
  /** Modules register here at start-up to hear of every folder and document delete. */
  readonly observers = new Observers<DirectoryObserver>();

  /** Tells every observer what was deleted (nothing when nothing was). */
  async announce(manager: EntityManager, apiKeyId: string, organizationId: string, deleted: DeletedPlaces): Promise<void> {
    if (!deleted.folderIds.length && !deleted.documentIds.length) return;
    await this.observers.notify((observer) => observer.placesDeleted(manager, apiKeyId, organizationId, deleted));
  }
}
