import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ItemResult, mapOf, SuccessResult, WithMetadata } from '../../common/openapi-responses.js';
import { ACCESS_TYPES } from '../../common/access-types.js';

/** A document as `documents/get` answers it, its metadata spread beside the known fields (contract part 4). */
@WithMetadata('Caller metadata is spread at the top level; the known fields win.')
export class DocumentView {
  @ApiProperty({ description: 'The documentId.' }) id!: string;
  @ApiProperty({ type: 'string', nullable: true }) documentName!: string | null;
  @ApiProperty() disabled!: boolean;
  @ApiProperty({ enum: ACCESS_TYPES, description: 'Effective: its own, else inherited from its folder or the key default.' }) accessType!: string;
  @ApiPropertyOptional({ description: 'Absent for a top-level document.' }) folderId?: string;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) createdAt!: number;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) lastUpdated!: number;
}

/** A requested id that names no document, worded as a permissions-get entry for a missing resource (contract part 5). */
export class MissingDocumentView {
  @ApiProperty({ enum: ['Document does not exist'] }) error!: string;
  @ApiProperty({ enum: ['does_not_exist'] }) errorCode!: 'does_not_exist';
}

export class DocumentsResult extends SuccessResult {
  @ApiProperty({ type: [DocumentView], description: 'The documents found; ids that name none are left out here and listed in `notFound`.' })
  data!: DocumentView[];
  @ApiPropertyOptional({ description: 'Token of the next page; absent on the last page.' }) pageToken?: string;
  @ApiPropertyOptional(
    mapOf(
      MissingDocumentView,
      'With `documentIds`: each requested id that names no document of the organization (under this API key), under that id. Absent when every requested document exists. A document that exists outside `folderId` is not listed.',
    ),
  )
  notFound?: Record<string, MissingDocumentView>;
}

/** One document's outcome in access update: upstream's `{ success, accessType, message }`, with the contract's `id`. */
export class DocumentAccessItemResult extends ItemResult {
  @ApiPropertyOptional({ enum: ACCESS_TYPES, description: "The document's own access type now; absent when the document does not exist." }) accessType?: string;
}

export class DocumentAccessResultsResult extends SuccessResult {
  @ApiProperty(mapOf(DocumentAccessItemResult, "Each document's outcome, under its id.")) data!: Record<string, DocumentAccessItemResult>;
}

/** One document's outcome in disable-state update: upstream's `{ success, disabled, message }`, with the contract's `id`. */
export class DocumentDisableStateItemResult extends ItemResult {
  @ApiPropertyOptional({ description: 'The disable state now; absent when the document does not exist.' }) disabled?: boolean;
}

export class DocumentDisableStateResultsResult extends SuccessResult {
  @ApiProperty(mapOf(DocumentDisableStateItemResult, "Each document's outcome, under its id.")) data!: Record<string, DocumentDisableStateItemResult>;
}
