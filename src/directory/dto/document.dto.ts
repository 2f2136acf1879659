import { PageSizeField, PageTokenField } from '../../common/paging.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { checkBoolean, checkOneOf, checkString } from '../../common/validation/checks.js';
import { IsBatchWithMetadata, IsBool, IsId, IsIdArray, IsOneOf, IsOptionalBool, IsOptionalId, IsOptionalIdArray } from '../../common/validation/rules.js';
import { ACCESS_TYPES } from '../../common/access-types.js';
import { MAX_BATCH, MAX_FILTER_IDS } from '../../common/batch.js';
import { WithMetadata } from '../../common/openapi-responses.js';

export const DOCUMENT_FIELDS = ['documentId', 'documentName', 'accessType', 'disabled'] as const;
const documentItemFields = {
  documentName: checkString({ max: 1000, allowEmpty: true }),
  accessType: checkOneOf(ACCESS_TYPES),
  disabled: checkBoolean,
};

/** `{ documentId, documentName?, accessType?, disabled?, ...metadata }` (documentation; `documentItemFields` validates). */
@WithMetadata()
export class DocumentInput {
  @ApiProperty() documentId!: string;
  @ApiPropertyOptional({ maxLength: 1000 }) documentName?: string;
  @ApiPropertyOptional({ enum: ACCESS_TYPES }) accessType?: string;
  @ApiPropertyOptional() disabled?: boolean;
  [metadata: string]: unknown;
}

export class AddDocumentsRequest {
  @IsId() organizationId!: string;

  /** At most 500; keys beyond the named ones are kept as metadata. */
  @ApiProperty({ type: [DocumentInput], maxItems: MAX_BATCH })
  @IsBatchWithMetadata('documentId', documentItemFields, MAX_BATCH)
  documents!: DocumentInput[];

  /** Put the documents in this folder (it must exist unless createFolder). */
  @IsOptionalId() folderId?: string;
  @IsOptionalBool() createOrganization?: boolean;
  @IsOptionalBool() createFolder?: boolean;
}

export class UpdateDocumentsRequest {
  @IsId() organizationId!: string;

  @ApiProperty({ type: [DocumentInput], maxItems: MAX_BATCH })
  @IsBatchWithMetadata('documentId', documentItemFields, MAX_BATCH)
  documents!: DocumentInput[];
}

export class GetDocumentsRequest {
  @IsId() organizationId!: string;

  @IsOptionalIdArray(MAX_FILTER_IDS)
  documentIds?: string[];

  /** Only documents directly in this folder. */
  @IsOptionalId() folderId?: string;

  @PageSizeField()
  pageSize?: number;

  @PageTokenField() pageToken?: string;
}

export class DocumentIdsRequest {
  @IsId() organizationId!: string;

  @IsIdArray(MAX_BATCH, { min: 1 })
  documentIds!: string[];
}

export class MoveDocumentsRequest {
  @IsId() organizationId!: string;

  @IsIdArray(MAX_FILTER_IDS, { min: 1 })
  documentIds!: string[];

  /** Target folder; `root` takes the documents out of any folder. */
  @IsId() folderId!: string;
}

export class UpdateDocumentAccessRequest extends DocumentIdsRequest {
  @IsOneOf(ACCESS_TYPES)
  accessType!: string;
}

export class DocumentsDisableStateRequest extends DocumentIdsRequest {
  @IsBool() disabled!: boolean;
}
