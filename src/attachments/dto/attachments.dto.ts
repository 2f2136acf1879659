import { ApiProperty } from '@nestjs/swagger';
import { MAX_BATCH } from '../../common/batch.js';
import { SuccessResult } from '../../common/openapi-responses.js';
import { checkArrayOf, checkInteger, Satisfies } from '../../common/validation.js';

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
