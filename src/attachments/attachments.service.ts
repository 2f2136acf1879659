import { randomInt, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Counter } from 'prom-client';
import type { EntityManager } from 'typeorm';
import { CommentStore } from '../comments/comment-store.js';
import { checkCommentId } from '../comments/dto/comments.dto.js';
import { Clock } from '../common/clock.js';
import { ApiError } from '../common/errors.js';
import { HealthReports } from '../common/health-reports.js';
import { Metrics } from '../common/metrics.js';
import { Secrets } from '../common/secrets.js';
import { checkId, type Check } from '../common/validation/checks.js';
import { AppConfig } from '../config/app-config.js';
import { Transactions } from '../database/transactions.js';
import { STREAMED_UPLOAD_PATH } from '../common/http/request-body.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import { attachmentLimits, type AttachmentLimits } from '../workspace/attachment-limits.js';
import { AttachmentStore, type Orphan, type StoredAttachment } from './attachment-store.js';
import { BlobStore } from './blob-store.js';
import { receiveUpload } from './multipart-upload.js';
import { receiveBody } from './raw-upload.js';
import type { PresignRequest } from './dto/attachments.dto.js';
import { AttachmentErrors } from './attachments.errors.js';
import { CommentErrors } from '../comments/comments.errors.js';

/** A pre-signed upload URL, and what it takes. */
export interface UploadUrl {
  uploadUrl: string;
  method: 'PUT';
  /** The largest body it takes (the key's limit as it is now; checked again at the PUT). */
  maxBytes: number;
  expiresAt: string;
}

/** What a caller learns of an attachment: the comment's `attachments[]` item, and a download link. */
export interface AttachmentLink {
  attachmentId: number;
  name: string;
  size: number;
  mimeType: string;
  url: string;
  /** When `url` stops working (ISO 8601). */
  expiresAt: string;
}

/** The path downloads are served at; the sealed link token is its `token` parameter. */
export const DOWNLOAD_PATH = '/v2/attachments/download';
const TOKEN_CONTEXT = 'attachment-download';
/** Where pre-signed uploads are PUT (the body bypasses both JSON pipelines); the sealed token is its `token` parameter. */
export const UPLOAD_PATH = STREAMED_UPLOAD_PATH;
/** Its own context: a download link's token opens no upload, and the reverse. */
const UPLOAD_TOKEN_CONTEXT = 'attachment-upload';
/** Orphaned blobs deleted per sweep statement. */
const SWEEP_BATCH = 100;

const UPLOAD_FIELDS: Record<string, Check> = {
  organizationId: checkId,
  documentId: checkId,
  annotationId: checkId,
  commentId: (value) => checkCommentId(Number(value)),
};

/**
 * Files attached to comments. An upload (multipart) is written to the incoming folder, stored
 * in the blob store, then recorded and added to its comment's `attachments[]` under the
 * thread's lock; a comment gone by then gets NOT_FOUND and the blob is deleted. Downloads go
 * through links sealed with a key derived from the master key (`Secrets.sealToken`), naming
 * the key, the attachment and an expiry; a link of a deleted comment's attachment stops
 * working at once. Blobs of comments that are gone (deleted, their thread or document deleted,
 * their writer erased, their key deleted) are found and deleted by a sweep every
 * `ATTACHMENT_SWEEP_SECONDS`: one place catches every way a comment can go.
 */
@Injectable()
export class AttachmentsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Attachments');
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private lastSweep: { at?: string; error?: string } = {};
  private readonly uploads: Counter;
  private readonly removed: Counter;

  constructor(
    private readonly attachments: AttachmentStore,
    private readonly blobs: BlobStore,
    private readonly comments: CommentStore,
    private readonly transactions: Transactions,
    private readonly secrets: Secrets,
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly keys: ApiKeyStore,
    private readonly clock: Clock,
    metrics: Metrics,
    health: HealthReports,
  ) {
    this.uploads = new Counter({ name: 'attachment_uploads_total', help: 'Files attached to comments.', registers: [metrics.registry] });
    this.removed = new Counter({ name: 'attachment_blobs_deleted_total', help: 'Blobs of gone comments deleted.', registers: [metrics.registry] });
    metrics.gauge('attachments_stored', 'Attachments stored: how many and their bytes.', 'kind', () => this.attachments.totals());
    health.add('attachments', () => ({
      driver: this.blobs.driver,
      ...(this.lastSweep.at ? { lastSweep: this.lastSweep.at } : {}),
      ...(this.lastSweep.error ? { sweepError: this.lastSweep.error } : {}),
    }));
  }

  onApplicationBootstrap(): void {
    if (!this.adapterHost.httpAdapter) return;
    this.sweepTimer = setInterval(() => void this.sweep(), this.config.attachments.sweepSeconds * 1000).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.sweeping;
  }

  /** Receives a multipart upload for a comment; answers its item with a download link. */
  async upload(apiKeyId: string, request: IncomingMessage, baseUrl: string): Promise<AttachmentLink> {
    const limits = await this.limitsOf(apiKeyId);
    const { fields, file } = await receiveUpload(request, { maxBytes: limits.maxBytes, incomingDir: this.blobs.incomingDir });
    let place: CommentPlace;
    try {
      place = checkedFields(fields);
    } catch (error) {
      await rm(file.path, { force: true });
      throw error;
    }
    return this.attach(apiKeyId, place, file, limits, baseUrl, randomInt(1, 2 ** 48));
  }

  /**
   * A pre-signed upload: a URL that takes the file's bytes by PUT, without credentials, until
   * `ATTACHMENT_UPLOAD_URL_TTL_SECONDS` have passed. Its token (sealed as download links are,
   * in its own context) names the key, the comment, the file's name and type, and the
   * attachment id the upload will get, so the URL works once. The comment, type and declared
   * size are checked now, so a client learns of a refusal before sending the bytes; the PUT
   * checks them again.
   */
  async presign(apiKeyId: string, request: PresignRequest, baseUrl: string): Promise<UploadUrl> {
    const limits = await this.limitsOf(apiKeyId);
    const mimeType = request.mimeType.toLowerCase();
    refuseType(limits, mimeType);
    if (request.size !== undefined && request.size > limits.maxBytes) throw AttachmentErrors.tooLarge(limits.maxBytes);
    const place = { organizationId: request.organizationId, documentId: request.documentId, annotationId: request.annotationId, commentId: request.commentId };
    await this.transactions.run(async (manager) => {
      const { comment } = await this.comments.lockComment(manager, { apiKeyId, ...place }, place.commentId);
      if (!comment) throw CommentErrors.commentNotFound();
    });
    const expires = this.clock.now() + this.config.attachments.uploadUrlTtlSeconds * 1000;
    const sealed: UploadToken = { k: apiKeyId, ...place, n: request.name, m: mimeType, a: randomInt(1, 2 ** 48), e: expires };
    return {
      uploadUrl: `${baseUrl}${UPLOAD_PATH}?token=${this.secrets.sealToken(JSON.stringify(sealed), UPLOAD_TOKEN_CONTEXT)}`,
      method: 'PUT',
      maxBytes: limits.maxBytes,
      expiresAt: new Date(expires).toISOString(),
    };
  }

  /**
   * The PUT of a pre-signed upload: the raw body streamed to the incoming folder within the
   * key's limits as they are now, then attached as a multipart upload is.
   */
  async putUpload(token: string, request: IncomingMessage, baseUrl: string): Promise<AttachmentLink> {
    const opened = this.secrets.openToken(token, UPLOAD_TOKEN_CONTEXT);
    // Refused before reading: the body is drained, so the answer is not overtaken by a reset.
    const refuse = (error: ApiError) => {
      request.resume();
      return Promise.reject(error);
    };
    if (!opened) return refuse(AttachmentErrors.uploadInvalid());
    const sealed = JSON.parse(opened) as UploadToken;
    if (this.clock.now() >= sealed.e) return refuse(AttachmentErrors.uploadExpired());
    const limits = await this.limitsOf(sealed.k);
    const received = await receiveBody(request, { maxBytes: limits.maxBytes, incomingDir: this.blobs.incomingDir });
    const { organizationId, documentId, annotationId, commentId } = sealed;
    return this.attach(
      sealed.k,
      { organizationId, documentId, annotationId, commentId },
      { ...received, name: sealed.n, mimeType: sealed.m },
      limits,
      baseUrl,
      sealed.a,
    );
  }
  /**
   * The one way a received file becomes an attachment (multipart or pre-signed): its type
   * checked, the blob stored, then under the thread's lock the row recorded and the item added
   * to the comment's `attachments[]`. A comment gone by then (deleted while the bytes arrived)
   * gets NOT_FOUND and the blob is deleted, so nothing is left behind; an attachment id already
   * recorded (a pre-signed URL used twice) is refused the same way.
   */
  private async attach(
    apiKeyId: string,
    place: CommentPlace,
    file: { path: string; name: string; mimeType: string; size: number },
    limits: AttachmentLimits,
    baseUrl: string,
    attachmentId: number,
  ): Promise<AttachmentLink> {
    const blobKey = `${randomUUID().replace(/-/g, '').slice(0, 2)}/${randomUUID().replace(/-/g, '')}`;
    let stored = false;
    try {
      refuseType(limits, file.mimeType);
      await this.blobs.put(blobKey, file.path, file.size, file.mimeType);
      stored = true;
      const attachment: StoredAttachment = {
        attachmentId,
        ...place,
        name: file.name.slice(0, 1000),
        mimeType: file.mimeType,
        size: file.size,
        blobKey,
        createdAt: Date.now(),
      };
      await this.transactions.run(async (manager) => {
        const thread = { apiKeyId, organizationId: place.organizationId, annotationId: place.annotationId, documentId: place.documentId };
        const { comment } = await this.comments.lockComment(manager, thread, place.commentId);
        if (!comment) throw CommentErrors.commentNotFound();
        if (await this.attachments.exists(manager, apiKeyId, attachmentId)) throw AttachmentErrors.uploadUsed();
        await this.attachments.insert(manager, apiKeyId, attachment);
        const item = {
          attachmentId: attachment.attachmentId,
          name: attachment.name,
          size: attachment.size,
          type: attachment.mimeType,
          mimeType: attachment.mimeType,
        };
        await this.comments.putComments(
          manager,
          apiKeyId,
          place.organizationId,
          place.annotationId,
          [{ ...comment, attachments: [...(comment.attachments ?? []), item] }],
          {
            fresh: false,
          },
        );
      });
      this.uploads.inc();
      return this.link(apiKeyId, attachment, baseUrl);
    } catch (error) {
      if (stored) await this.blobs.delete(blobKey).catch(() => undefined);
      await rm(file.path, { force: true });
      throw error;
    }
  }

  /** The key's limits: its own (apikeyconfig `attachmentConfig`) within the service's. */
  private async limitsOf(apiKeyId: string): Promise<AttachmentLimits> {
    return attachmentLimits(this.config.attachments, (await this.keys.settings(apiKeyId)).attachmentConfig);
  }

  /** Fresh download links of the key's attachments of these ids (those whose comment is gone are left out). */
  async links(apiKeyId: string, attachmentIds: number[], baseUrl: string): Promise<AttachmentLink[]> {
    return (await this.attachments.live(apiKeyId, attachmentIds)).map((attachment) => this.link(apiKeyId, attachment, baseUrl));
  }

  /**
   * One page of the attachments on comments the user wrote (the user-data export), with fresh
   * download links; `next` continues after the last when one more exists.
   */
  async writtenBy(
    apiKeyId: string,
    request: { organizationId: string; userId: string; after?: number; limit: number },
    baseUrl: string,
  ): Promise<{ links: (AttachmentLink & CommentPlace)[]; next?: number }> {
    const found = await this.attachments.writtenBy(apiKeyId, request.organizationId, request.userId, request.after, request.limit + 1);
    const page = found.slice(0, request.limit);
    return {
      links: page.map((attachment) => ({
        organizationId: attachment.organizationId,
        documentId: attachment.documentId,
        annotationId: attachment.annotationId,
        commentId: attachment.commentId,
        ...this.link(apiKeyId, attachment, baseUrl),
      })),
      ...(found.length > request.limit ? { next: page[page.length - 1]!.attachmentId } : {}),
    };
  }

  /** The file a download link names, while the link is valid and its comment exists. */
  async download(token: string): Promise<{ attachment: StoredAttachment; body: Readable }> {
    const opened = this.secrets.openToken(token, TOKEN_CONTEXT);
    if (!opened) throw AttachmentErrors.linkInvalid();
    const { k: apiKeyId, a: attachmentId, e: expires } = JSON.parse(opened) as { k: string; a: number; e: number };
    if (this.clock.now() >= expires) throw AttachmentErrors.linkExpired();
    const [attachment] = await this.attachments.live(apiKeyId, [attachmentId]);
    const body = attachment && (await this.blobs.get(attachment.blobKey));
    if (!attachment || !body) throw AttachmentErrors.gone();
    return { attachment, body };
  }

  /** Deletes the blobs, then the rows, of attachments whose comment is gone; one sweep at a time. */
  sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      try {
        await this.removeOrphans(
          () => this.attachments.orphans(SWEEP_BATCH),
          (orphan) => this.transactions.run((manager) => this.attachments.remove(manager, orphan.apiKeyId, orphan.attachmentId)),
        );
        this.lastSweep = { at: new Date().toISOString() };
      } catch (error) {
        this.lastSweep = { ...this.lastSweep, error: (error as Error).message };
        this.logger.warn({ error: (error as Error).message }, 'attachment sweep failed; the next one tries again');
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }

  /**
   * In a data deletion job, after its comments task: deletes the key's attachments whose comment
   * is gone, blobs first, so the job completes with the erased users' files gone (the sweep
   * would take them later). A blob deleted for a row whose deletion then rolls back leaves a
   * row whose comment is gone: the sweep deletes it.
   */
  async eraseOrphans(manager: EntityManager, apiKeyId: string): Promise<void> {
    await this.removeOrphans(
      () => this.attachments.orphans(SWEEP_BATCH, { manager, apiKeyId }),
      (orphan) => this.attachments.remove(manager, apiKeyId, orphan.attachmentId),
    );
  }

  /** Deletes each orphan's blob, then its row (`remove`), batch after batch until `find` finds none. */
  private async removeOrphans(find: () => Promise<Orphan[]>, remove: (orphan: Orphan) => Promise<void>): Promise<void> {
    for (let orphans = await find(); orphans.length; orphans = await find()) {
      for (const orphan of orphans) {
        await this.blobs.delete(orphan.blobKey);
        await remove(orphan);
        this.removed.inc();
      }
    }
  }

  private link(apiKeyId: string, attachment: StoredAttachment, baseUrl: string): AttachmentLink {
    const expires = this.clock.now() + this.config.attachments.urlTtlSeconds * 1000;
    const token = this.secrets.sealToken(JSON.stringify({ k: apiKeyId, a: attachment.attachmentId, e: expires }), TOKEN_CONTEXT);
    return {
      attachmentId: attachment.attachmentId,
      name: attachment.name,
      size: attachment.size,
      mimeType: attachment.mimeType,
      url: `${baseUrl}${DOWNLOAD_PATH}?token=${token}`,
      expiresAt: new Date(expires).toISOString(),
    };
  }
}

/** The comment an upload is for. */
export interface CommentPlace {
  organizationId: string;
  documentId: string;
  annotationId: string;
  commentId: number;
}

/** What a pre-signed upload URL's token holds: key, comment, file name and type, attachment id, expiry (epoch ms). */
interface UploadToken extends CommentPlace {
  k: string;
  n: string;
  m: string;
  a: number;
  e: number;
}

/** The upload's form fields, checked; the first wrong one is named. */
function checkedFields(fields: Record<string, string>): CommentPlace {
  for (const [name, check] of Object.entries(UPLOAD_FIELDS)) {
    if (fields[name] === undefined) throw AttachmentErrors.formFieldMissing(name);
    const problem = check(fields[name]);
    if (problem) throw AttachmentErrors.formFieldInvalid(name, problem);
  }
  return { organizationId: fields.organizationId!, documentId: fields.documentId!, annotationId: fields.annotationId!, commentId: Number(fields.commentId) };
}

/** Refuses a type the key's limits do not accept, naming the list that refuses it. */
function refuseType(limits: AttachmentLimits, mimeType: string): void {
  const refusedBy = limits.refusedBy(mimeType);
  if (refusedBy) throw AttachmentErrors.typeRefused(mimeType, refusedBy);
}
