import { Controller, Get, HttpCode, Put, Query, Req, SetMetadata, StreamableFile } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import { Answered } from '../common/answers/operation-answers.js';
import { Auth, Operation, OPERATION_METADATA, type OperationOptions } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { AppConfig } from '../config/app-config.js';
import { AttachmentsService, DOWNLOAD_PATH, UPLOAD_PATH, type AttachmentLink, type UploadUrl } from './attachments.service.js';
import { linkBaseUrl, type AdapterRequest } from './link-base-url.js';
import { AttachmentAddedResult, AttachmentLinksResult, GetAttachmentsRequest, PresignRequest, UploadUrlResult } from './dto/attachments.dto.js';
import { CommentErrors } from '../comments/comments.errors.js';

const ADDED = 'Attachment added successfully.';
/** The pre-signed upload's PUT, declared for the guards and answered like an operation, outside the document. */
const UPLOAD_OPERATION: OperationOptions = { auth: 'public', message: ADDED, response: AttachmentAddedResult };

/** Files attached to comments (ours: upstream's REST API takes attachments' metadata only). */
@ApiTags('comments')
@Controller()
export class AttachmentsController {
  constructor(
    private readonly attachments: AttachmentsService,
    private readonly config: AppConfig,
  ) {}

  @Operation('/v2/commentannotations/comments/attachments/add', {
    summary: 'Uploads a file (multipart) and attaches it to a comment.',
    listedAfter: '/v2/commentannotations/comments/add',

    auth: 'apiKey',
    message: ADDED,
    response: AttachmentAddedResult,
    errors: [CommentErrors.commentNotFound()],
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['organizationId', 'documentId', 'annotationId', 'commentId', 'file'],
      properties: {
        // Examples: the first comment of the thread `commentannotations/add` starts in its example.
        organizationId: { type: 'string', example: 'org-acme' },
        documentId: { type: 'string', example: 'doc-roadmap' },
        annotationId: { type: 'string', example: 'ann-launch-date' },
        commentId: { type: 'integer', example: 1 },
        file: { type: 'string', format: 'binary', description: 'At most ATTACHMENT_MAX_BYTES, of a type ATTACHMENT_TYPES accepts.' },
      },
    },
  })
  add(@ApiKeyPrincipal() caller: Caller, @Req() request: AdapterRequest): Promise<AttachmentLink> {
    return this.attachments.upload(caller.apiKeyId, request.raw ?? request, this.baseUrl(request));
  }

  @Operation('/v2/commentannotations/comments/attachments/get', {
    summary: 'Answers fresh download links of attachments by id.',
    example: { attachmentIds: [202339246311381] },
    exampleFrom: { '/attachmentIds/0': { operation: '/v2/commentannotations/comments/attachments/add', answer: '/result/data/attachmentId' } },
    listedAfter: '/v2/commentannotations/comments/attachments/add',

    auth: 'apiKey',
    message: 'Attachments retrieved successfully.',
    response: AttachmentLinksResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetAttachmentsRequest, @Req() request: AdapterRequest): Promise<AttachmentLink[]> {
    return this.attachments.links(caller.apiKeyId, data.attachmentIds, this.baseUrl(request));
  }

  @Operation('/v2/commentannotations/comments/attachments/presign', {
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      annotationId: 'ann-launch-date',
      commentId: 1,
      name: 'launch-plan.pdf',
      mimeType: 'application/pdf',
      size: 482133,
    },
    listedAfter: '/v2/commentannotations/comments/attachments/get',

    auth: 'apiKey',
    message: 'Upload URL created successfully.',
    response: UploadUrlResult,
    errors: [CommentErrors.commentNotFound()],
    summary: 'A pre-signed URL to PUT a large file to, which attaches it to the comment.',
  })
  presign(@ApiKeyPrincipal() caller: Caller, @RequestData() data: PresignRequest, @Req() request: AdapterRequest): Promise<UploadUrl> {
    return this.attachments.presign(caller.apiKeyId, data, this.baseUrl(request));
  }

  /**
   * A pre-signed upload's PUT: the sealed token is the credential; the raw body (left unread by
   * both JSON pipelines, `isStreamedBody`) is streamed to the store. Answered in the success
   * envelope as the multipart add is (`Answered`; the guards read its level from the same
   * operation metadata), outside the OpenAPI document as the download link is: clients get its
   * URL from `presign`.
   */
  @Put(UPLOAD_PATH.slice(1))
  @HttpCode(200)
  @Auth('public')
  @SetMetadata(OPERATION_METADATA, UPLOAD_OPERATION)
  @Answered(UPLOAD_OPERATION)
  @ApiExcludeEndpoint()
  put(@Query('token') token: unknown, @Req() request: AdapterRequest): Promise<AttachmentLink> {
    return this.attachments.putUpload(typeof token === 'string' ? token : '', request.raw ?? request, this.baseUrl(request));
  }

  /**
   * A download link: the sealed token is the credential, in the query string, which request
   * logs leave out; the file comes as an attachment, never rendered inline.
   */
  @Get(DOWNLOAD_PATH.slice(1))
  @Auth('public')
  @ApiExcludeEndpoint()
  async download(@Query('token') token: unknown): Promise<StreamableFile> {
    const { attachment, body } = await this.attachments.download(typeof token === 'string' ? token : '');
    return new StreamableFile(body, {
      type: attachment.mimeType,
      length: attachment.size,
      disposition: `attachment; filename*=UTF-8''${encodeURIComponent(attachment.name)}`,
    });
  }

  private baseUrl(request: AdapterRequest): string {
    return linkBaseUrl(this.config, request);
  }
}
