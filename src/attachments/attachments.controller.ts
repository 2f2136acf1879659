import type { IncomingMessage } from 'node:http';
import { Controller, Get, Query, Req, StreamableFile } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import { Auth, Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { AppConfig } from '../config/app-config.js';
import { AttachmentsService, DOWNLOAD_PATH, type AttachmentLink } from './attachments.service.js';
import { AttachmentAddedResult, AttachmentLinksResult, GetAttachmentsRequest } from './dto/attachments.dto.js';

/** The Node request under either adapter (Fastify wraps it as `raw`). */
type AdapterRequest = IncomingMessage & { raw?: IncomingMessage };

/** Files attached to comments (ours: upstream's REST API takes attachments' metadata only). */
@ApiTags('comments')
@Controller()
export class AttachmentsController {
  constructor(
    private readonly attachments: AttachmentsService,
    private readonly config: AppConfig,
  ) {}

  @Operation('/v2/commentannotations/comments/attachments/add', {
    auth: 'apiKey',
    message: 'Attachment added successfully.',
    response: AttachmentAddedResult,
    errors: ['NOT_FOUND'],
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['organizationId', 'documentId', 'annotationId', 'commentId', 'file'],
      properties: {
        organizationId: { type: 'string' },
        documentId: { type: 'string' },
        annotationId: { type: 'string' },
        commentId: { type: 'integer' },
        file: { type: 'string', format: 'binary', description: 'At most ATTACHMENT_MAX_BYTES, of a type ATTACHMENT_TYPES accepts.' },
      },
    },
  })
  add(@ApiKeyPrincipal() caller: Caller, @Req() request: AdapterRequest): Promise<AttachmentLink> {
    return this.attachments.upload(caller.apiKeyId, request.raw ?? request, this.baseUrl(request));
  }

  @Operation('/v2/commentannotations/comments/attachments/get', {
    auth: 'apiKey',
    message: 'Attachments retrieved successfully.',
    response: AttachmentLinksResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetAttachmentsRequest, @Req() request: AdapterRequest): Promise<AttachmentLink[]> {
    return this.attachments.links(caller.apiKeyId, data.attachmentIds, this.baseUrl(request));
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

  /** Where links point: `PUBLIC_URL`, else the host the caller reached. */
  private baseUrl(request: AdapterRequest): string {
    if (this.config.publicUrl) return this.config.publicUrl;
    const raw = request.raw ?? request;
    const secure = (raw.socket as { encrypted?: boolean }).encrypted === true;
    return `${secure ? 'https' : 'http'}://${raw.headers.host ?? `localhost:${this.config.port}`}`;
  }
}
