import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import type { AccessType } from '../common/access-types.js';
import type { ItemResult, ItemResults } from '../common/batch.js';
import { DirectoryMessages } from './directory.errors.js';
import { DocumentsService } from './documents.service.js';
import { DocumentMigrationService } from './document-migration.service.js';
import type { MigrationRecord } from './document-migration-store.js';
import { MigrateDocumentRequest, MigrationStartedResult, MigrationStatusRequest, MigrationStatusResult } from './dto/document-migration.dto.js';
import {
  AddDocumentsRequest,
  DocumentIdsRequest,
  DocumentsDisableStateRequest,
  GetDocumentsRequest,
  MoveDocumentsRequest,
  UpdateDocumentAccessRequest,
  UpdateDocumentsRequest,
} from './dto/document.dto.js';
import { DocumentAccessResultsResult, DocumentDisableStateResultsResult, DocumentsResult } from './dto/document.response.js';
import { ItemResultsResult } from '../common/openapi-responses.js';
import { DirectoryErrors } from './directory.errors.js';

/** Documents of an organization (contract part 4). */
@ApiTags('documents')
@Controller()
export class DocumentsController {
  constructor(
    private readonly documents: DocumentsService,
    private readonly migrations: DocumentMigrationService,
  ) {}

  @Operation('/v2/organizations/documents/add', {
    summary: 'Adds documents to an organization, optionally in a folder; keys beyond the named fields are kept as metadata.',
    example: {
      organizationId: 'org-acme',
      folderId: 'folder-planning',
      documents: [
        { documentId: 'doc-roadmap', documentName: 'Product roadmap', owner: 'user-alice' },
        { documentId: 'doc-draft', documentName: 'Draft (to delete)' },
        { documentId: 'doc-old-spec', documentName: 'Specification (old id)' },
        { documentId: 'doc-archive', documentName: 'Archived plan' },
      ],
    },
    aliasExamples: {
      '/v1/organizations/documents/add': { organizationId: 'org-acme', documents: [{ documentId: 'doc-meeting-notes', documentName: 'Meeting notes' }] },
    },

    aliases: ['/v1/organizations/documents/add'],
    auth: 'apiKey',
    message: 'Document(s) added successfully.',
    response: ItemResultsResult,
    errors: [DirectoryErrors.organizationMissing(), DirectoryErrors.folderNotFound()],
  })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddDocumentsRequest): Promise<ItemResults> {
    return this.documents.add(caller, data);
  }

  @Operation('/v2/organizations/documents/get', {
    summary: "Reads documents by id, or an organization's (or folder's) documents a page at a time.",
    example: { organizationId: 'org-acme', documentIds: ['doc-roadmap', 'doc-archive'] },

    aliases: ['/v1/organizations/documents/get'],
    auth: 'apiKey',
    message: 'Document(s) retrieved successfully.',
    result: 'fields',
    response: DocumentsResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetDocumentsRequest): ReturnType<DocumentsService['get']> {
    return this.documents.get(caller, data);
  }

  @Operation('/v2/organizations/documents/update', {
    summary: 'Changes existing documents (name, access type, disabled, metadata); an unknown id fails on its own.',
    example: { organizationId: 'org-acme', documents: [{ documentId: 'doc-roadmap', documentName: 'Product roadmap 2027', owner: 'user-alice' }] },

    aliases: ['/v1/organizations/documents/update'],
    auth: 'apiKey',
    message: 'Document(s) updated successfully.',
    response: ItemResultsResult,
  })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateDocumentsRequest): Promise<ItemResults> {
    return this.documents.update(caller, data.organizationId, data.documents);
  }

  @Operation('/v2/organizations/documents/delete', {
    summary: 'Deletes documents, and the access grants on them.',
    example: { organizationId: 'org-acme', documentIds: ['doc-draft'] },
    aliasExamples: { '/v1/organizations/documents/delete': { organizationId: 'org-acme', documentIds: ['doc-meeting-notes'] } },

    aliases: ['/v1/organizations/documents/delete'],
    auth: 'apiKey',
    message: 'Document(s) deleted successfully.',
    response: ItemResultsResult,
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DocumentIdsRequest): Promise<ItemResults> {
    return this.documents.delete(caller, data.organizationId, data.documentIds);
  }

  @Operation('/v2/organizations/documents/move', {
    summary: 'Moves documents into a folder, or to top level with `root`.',
    example: { organizationId: 'org-acme', documentIds: ['doc-roadmap'], folderId: 'folder-q3' },

    aliases: ['/v1/organizations/documents/move'],
    auth: 'apiKey',
    message: 'Documents moved successfully.',
    response: ItemResultsResult,
    errors: [DirectoryErrors.folderNotFound()],
  })
  move(@ApiKeyPrincipal() caller: Caller, @RequestData() data: MoveDocumentsRequest): Promise<ItemResults> {
    return this.documents.move(caller, data);
  }

  @Operation('/v2/organizations/documents/access/update', {
    summary: "Sets documents' access type: public, organization members only, or only users given access.",
    example: { organizationId: 'org-acme', documentIds: ['doc-roadmap'], accessType: 'organizationPrivate' },

    aliases: ['/v1/organizations/documents/access/update'],
    auth: 'apiKey',
    message: 'Updated access for documents successfully.',
    response: DocumentAccessResultsResult,
  })
  updateAccess(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateDocumentAccessRequest): Promise<Record<string, ItemResult>> {
    return this.documents.set(
      caller,
      data.organizationId,
      data.documentIds,
      { accessType: data.accessType as AccessType },
      DirectoryMessages.documentAccessUpdated,
    );
  }

  @Operation('/v2/organizations/documents/access/disablestate/update', {
    summary: 'Disables documents (access to them is denied) or enables them again.',
    example: { organizationId: 'org-acme', documentIds: ['doc-archive'], disabled: true },

    aliases: ['/v1/organizations/documents/access/disablestate/update'],
    auth: 'apiKey',
    message: 'Updated disable state for documents successfully.',
    response: DocumentDisableStateResultsResult,
  })
  setDisabled(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DocumentsDisableStateRequest): Promise<Record<string, ItemResult>> {
    return this.documents.set(caller, data.organizationId, data.documentIds, { disabled: data.disabled }, DirectoryMessages.documentDisableStateUpdated);
  }

  @Operation('/v2/organizations/documents/migrate', {
    summary: 'Gives a document a new id, moving everything attached to it.',
    example: { organizationId: 'org-acme', documentId: 'doc-old-spec', newDocumentId: 'doc-spec' },

    auth: 'apiKey',
    message: 'Document migration started successfully.',
    response: MigrationStartedResult,
    errors: [DirectoryErrors.organizationMissing(), DirectoryErrors.documentMissing(), DirectoryErrors.documentExists()],
  })
  migrate(@ApiKeyPrincipal() caller: Caller, @RequestData() data: MigrateDocumentRequest): Promise<{ migrationId: string }> {
    return this.migrations.migrate(caller, data);
  }

  @Operation('/v2/organizations/documents/migrate/status', {
    summary: 'Reads the status of a document migration.',
    example: { organizationId: 'org-acme', migrationId: 'mig_01JDQ4B5C6D7E8F9G0H1J2K3L4' },
    exampleFrom: { '/migrationId': { operation: '/v2/organizations/documents/migrate', answer: '/result/data/migrationId' } },

    auth: 'apiKey',
    message: 'Migration status retrieved successfully.',
    response: MigrationStatusResult,
    errors: [DirectoryErrors.migrationNotFound()],
  })
  migrationStatus(@ApiKeyPrincipal() caller: Caller, @RequestData() data: MigrationStatusRequest): Promise<MigrationRecord> {
    return this.migrations.status(caller, data);
  }
}
