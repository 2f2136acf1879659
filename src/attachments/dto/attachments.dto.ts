import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_BATCH } from '../../common/batch.js';
import { SuccessResult } from '../../common/openapi-responses.js';
import { checkArrayOf, checkInteger } from '../../common/validation/checks.js';
import { IsId, IsOptionalInteger, IsText, Satisfies } from '../../common/validation/rules.js';
import { MIME_PATTERN } from '../../workspace/attachment-limits.js';
import { checkCommentId } from '../../comments/dto/comments.dto.js';

/** An attachment as its comment's `attachments[]` item, with a download link. */
export class AttachmentLinkView {
  @ApiProperty() attachmentId!: number;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'Bytes.' }) size!: number;
  @ApiProperty() mimeType!: string;
  @ApiProperty({ description: 'Download link: works without credentials until `expiresAt` (ATTACHMENT_URL_TTL_SECONDS), and while the comment exists.' })
  url!: string;
  @ApiProperty({ description: 'ISO 8601.' }) expiresAt!: string;
}

export class AttachmentAddedResult extends SuccessResult {
  @ApiProperty({ type: AttachmentLinkView }) data!: AttachmentLinkView;
}

/** `attachments/get`: fresh links of attachments by id. */
export class GetAttachmentsRequest {
  @ApiProperty({ type: [Number], maxItems: MAX_BATCH })
  @Satisfies(checkArrayOf(checkInteger(1, Number.MAX_SAFE_INTEGER), { min: 1, max: MAX_BATCH }))
  attachmentIds!: number[];
}

export class AttachmentLinksResult extends SuccessResult {
  @ApiProperty({ type: [AttachmentLinkView], description: 'The attachments found; ids of none (or of a deleted comment) are left out.' })
  data!: AttachmentLinkView[];
}

/** `attachments/presign`: a URL to PUT one file's bytes to, for a comment. */
export class PresignRequest {
  @IsId() organizationId!: string;
  @IsId() documentId!: string;
  @IsId() annotationId!: string;
  @ApiProperty({ type: 'integer' }) @Satisfies(checkCommentId) commentId!: number;
  @ApiProperty({ description: "The file's name, as downloads give it." }) @IsText(1000) name!: string;
  @ApiProperty({ description: 'The MIME type: one the key accepts (apikeyconfig `attachmentConfig.types`, within ATTACHMENT_TYPES).' })
  @Satisfies((value) => (typeof value === 'string' && value.length <= 255 && MIME_PATTERN.test(value) ? undefined : 'must be a MIME type (`type/subtype`)'))
  mimeType!: string;
  @ApiPropertyOptional({ description: 'Bytes, when known: over the limit is refused now (413) instead of after the upload.' })
  @IsOptionalInteger(0, Number.MAX_SAFE_INTEGER)
  size?: number;
}

export class UploadUrlView {
  @ApiProperty({ description: 'PUT the raw bytes here (any Content-Type; the type is the one named here), without credentials, once, before `expiresAt`.' })
  uploadUrl!: string;
  @ApiProperty({ enum: ['PUT'] }) method!: 'PUT';
  @ApiProperty({ type: 'integer', description: "The largest body it takes: the key's limit (checked again at the PUT)." }) maxBytes!: number;
  @ApiProperty({ description: 'ISO 8601: the PUT must start before then (ATTACHMENT_UPLOAD_URL_TTL_SECONDS).' }) expiresAt!: string;
}

export class UploadUrlResult extends SuccessResult {
  @ApiProperty({ type: UploadUrlView }) data!: UploadUrlView;
}
