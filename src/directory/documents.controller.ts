import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import { withResultFields, type ResultFields } from '../common/envelope.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import type { AccessType } from '../common/access-types.js';
import type { ItemResult, ItemResults } from '../common/batch.js';
import { DirectoryMessages } from './directory.errors.js';
import { DocumentsService } from './documents.service.js';
import { DocumentMigrationService } from './document-migration.service.js';
import type { MigrationRecord } from './document-migrations.js';
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

/** Documents of an organization (contract part 4). */
@ApiTags('documents')
@Controller()
export class DocumentsController {
  constructor(
    private readonly documents: DocumentsService,
    private readonly migrations: DocumentMigrationService,
  ) {}

  @Operation('/v2/organizations/documents/add', {
    aliases: ['/v1/organizations/documents/add'],
    auth: 'apiKey',
    message: 'Document(s) added successfully.',
    response: ItemResultsResult,
    errors: ['NOT_FOUND'],
  })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddDocumentsRequest): Promise<ItemResults> {
    return this.documents.add(caller, data);
  }

  @Operation('/v2/organizations/documents/get', {
    aliases: ['/v1/organizations/documents/get'],
    auth: 'apiKey',
    message: 'Document(s) retrieved successfully.',
    response: DocumentsResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetDocumentsRequest): Promise<ResultFields> {
    return this.documents.get(caller, data).then((page) => withResultFields(page.documents, { pageToken: page.pageToken, notFound: page.notFound }));
  }

  @Operation('/v2/organizations/documents/update', {
    aliases: ['/v1/organizations/documents/update'],
    auth: 'apiKey',
    message: 'Document(s) updated successfully.',
    response: ItemResultsResult,
  })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateDocumentsRequest): Promise<ItemResults> {
    return this.documents.update(caller, data.organizationId, data.documents);
  }

  @Operation('/v2/organizations/documents/delete', {
    aliases: ['/v1/organizations/documents/delete'],
    auth: 'apiKey',
    message: 'Document(s) deleted successfully.',
    response: ItemResultsResult,
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DocumentIdsRequest): Promise<ItemResults> {
    return this.documents.delete(caller, data.organizationId, data.documentIds);
  }

  @Operation('/v2/organizations/documents/move', {
    aliases: ['/v1/organizations/documents/move'],
    auth: 'apiKey',
    message: 'Documents moved successfully.',
    response: ItemResultsResult,
    errors: ['NOT_FOUND'],
  })
  move(@ApiKeyPrincipal() caller: Caller, @RequestData() data: MoveDocumentsRequest): Promise<ItemResults> {
    return this.documents.move(caller, data);
  }

  @Operation('/v2/organizations/documents/access/update', {
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
    aliases: ['/v1/organizations/documents/access/disablestate/update'],
    auth: 'apiKey',
    message: 'Updated disable state for documents successfully.',
    response: DocumentDisableStateResultsResult,
  })
  setDisabled(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DocumentsDisableStateRequest): Promise<Record<string, ItemResult>> {
    return this.documents.set(caller, data.organizationId, data.documentIds, { disabled: data.disabled }, DirectoryMessages.documentDisableStateUpdated);
  }

  @Operation('/v2/organizations/documents/migrate', {
    auth: 'apiKey',
    message: 'Document migration started successfully.',
    response: MigrationStartedResult,
    errors: ['NOT_FOUND', 'ALREADY_EXISTS'],
  })
  migrate(@ApiKeyPrincipal() caller: Caller, @RequestData() data: MigrateDocumentRequest): Promise<{ migrationId: string }> {
    return this.migrations.migrate(caller, data);
  }

  @Operation('/v2/organizations/documents/migrate/status', {
    auth: 'apiKey',
    message: 'Migration status retrieved successfully.',
    response: MigrationStatusResult,
    errors: ['NOT_FOUND'],
  })
  migrationStatus(@ApiKeyPrincipal() caller: Caller, @RequestData() data: MigrationStatusRequest): Promise<MigrationRecord> {
    return this.migrations.status(caller, data);
  }
}
