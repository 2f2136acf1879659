import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsId, IsOneOf, IsOptionalId, IsOptionalIdArray, IsOptionalText, Optional, Satisfies } from '../../common/validation/rules.js';
import { PageSizeField, PageTokenField } from '../../common/paging.js';
import { MAX_BATCH } from '../../common/batch.js';
import { CRDT_TYPES, type CrdtType } from '../crdt-data.js';

/** Base64 as Yjs encodings travel (standard alphabet, padded). */
const checkBase64 = (value: unknown) =>
  typeof value === 'string' && value.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? undefined : 'must be base64 (standard alphabet, padded)';
const required = (value: unknown) => (value === undefined ? 'is required' : undefined);

/** CRDT `data` in OpenAPI: which of the three it must be depends on `type` (checked by the service). */
export const crdtDataSchema = () => ({
  oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: true }, { type: 'array', items: {} }],
  description: 'string (text, xml), object (map) or array (array)',
});

/** OpenAPI of `sessionId` of the writes (up to 256 characters). */
const sessionIdSchema = () => ({ maxLength: 256, description: "The writer's session; `crdt/get` answers it as `sessionId` until the next write." });

class EditorRequest {
  @IsId() organizationId!: string;
  @IsId() documentId!: string;
  @IsId() editorId!: string;
}

/** Add and update (contract part 7): the whole content, diffed into the stored document on update. */
export class WriteCrdtRequest extends EditorRequest {
  @IsOneOf(CRDT_TYPES) type!: CrdtType;

  /** A string for `text` and `xml`, an object for `map`, an array for `array`. */
  @ApiProperty(crdtDataSchema())
  @Satisfies(required)
  data!: unknown;

  /** Name of the shared type in the Yjs document. */
  @ApiPropertyOptional({ description: 'Default: `content`.' })
  @IsOptionalText(256)
  contentKey?: string;

  /** Recorded as `lastUpdatedBy`. */
  @IsOptionalId() userId?: string;
  @ApiPropertyOptional(sessionIdSchema()) @IsOptionalText(256) sessionId?: string;
}

export class GetCrdtRequest {
  @IsId() organizationId!: string;
  @IsId() documentId!: string;
  /** Omitted: every editor of the document. */
  @IsOptionalId() editorId?: string;
  /** Editors per page (default 1000); a page of large editors is cut shorter (see `PAGE_BYTES`). */
  @PageSizeField()
  pageSize?: number;
  /** From the previous answer's `pageToken`, present when more editors follow. */
  @PageTokenField()
  pageToken?: string;
}

export class DeleteCrdtRequest {
  @IsId() organizationId!: string;
  @IsId() documentId!: string;

  /** Omitted: every editor of the document. */
  @IsOptionalIdArray(MAX_BATCH, { min: 1 })
  editorIds?: string[];
}

export class GetCrdtStateRequest extends EditorRequest {
  /** The caller's state vector (base64); the answer then holds only what it lacks. */
  @ApiPropertyOptional() @Optional() @Satisfies(checkBase64) stateVector?: string;
}

export class UpdateCrdtStateRequest extends EditorRequest {
  /** A Yjs update (base64), e.g. from `Y.encodeStateAsUpdate`. */
  @ApiProperty() @Satisfies(checkBase64) update!: string;

  @IsOptionalId() userId?: string;
  @ApiPropertyOptional(sessionIdSchema()) @IsOptionalText(256) sessionId?: string;
}
