import { Injectable } from '@nestjs/common';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { DirectoryErrors } from './directory.errors.js';
import { DocumentMigrationStore, type MigrationRecord } from './document-migration-store.js';
import { DocumentsService } from './documents.service.js';
import type { MigrateDocumentRequest, MigrationStatusRequest } from './dto/document-migration.dto.js';
import { OrganizationStore } from './organization-store.js';

/**
 * `organizations/documents/migrate` and its status: a document takes a new id, and everything
 * about it (grants, threads, notifications, activities, editors, attachments, presence,
 * preferences, judgments) follows, in one transaction with the migration's record, so a failure
 * anywhere leaves the document as it was and no migration to report.
 */
@Injectable()
export class DocumentMigrationService {
  constructor(
    private readonly transactions: Transactions,
    private readonly organizations: OrganizationStore,
    private readonly documents: DocumentsService,
    private readonly migrations: DocumentMigrationStore,
  ) {}

  /** Moves the document to its new id; the migration's id, for `status`. */
  async migrate(principal: ApiKeyPrincipal, request: MigrateDocumentRequest): Promise<{ migrationId: string }> {
    const { apiKeyId } = principal;
    if (request.newDocumentId === request.documentId) throw DirectoryErrors.sameDocumentId();
    const move = { organizationId: request.organizationId, from: request.documentId, to: request.newDocumentId };
    return this.transactions.run(async (manager) => {
      // The organization's lock first, as every directory write that reads before it changes:
      // two migrations of one organization's documents (or one racing a folder delete) take turns.
      await this.organizations.require(manager, apiKeyId, request.organizationId, false);
      await this.documents.rekey(manager, apiKeyId, move);
      return { migrationId: await this.migrations.recordCompleted(manager, apiKeyId, move, Date.now()) };
    });
  }

  /** The migration's status; NOT_FOUND for an id the key does not have in this organization. */
  async status(principal: ApiKeyPrincipal, request: MigrationStatusRequest): Promise<MigrationRecord> {
    const found = await this.migrations.find(principal.apiKeyId, request.organizationId, request.migrationId);
    if (!found) throw DirectoryErrors.migrationNotFound();
    return found;
  }
}
