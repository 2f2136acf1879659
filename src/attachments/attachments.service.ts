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
import { ApiError } from '../common/errors.js';
import { HealthReports } from '../common/health-reports.js';
import { Metrics } from '../common/metrics.js';
import { Secrets } from '../common/secrets.js';
import { checkId, type Check } from '../common/validation.js';
import { AppConfig } from '../config/app-config.js';
import { Transactions } from '../database/transactions.js';
import { AttachmentStore, type Orphan, type StoredAttachment } from './attachment-store.js';
import { BlobStore } from './blob-store.js';
import { receiveUpload, UploadErrors } from './multipart-upload.js';

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

export const AttachmentErrors = {
  typeRefused: (mimeType: string) => new ApiError('INVALID_ARGUMENT', `file type ${mimeType} is not accepted (ATTACHMENT_TYPES).`),
  commentMissing: () => new ApiError('NOT_FOUND', 'Comment not found.'),
  linkInvalid: () => new ApiError('PERMISSION_DENIED', 'This download link is not valid.'),
  linkExpired: () => new ApiError('PERMISSION_DENIED', 'This download link has expired.'),
  gone: () => new ApiError('NOT_FOUND', 'Attachment not found.'),
};

/** The path downloads are served at; the sealed link token is its `token` parameter. */
export const DOWNLOAD_PATH = '/v2/attachments/download';
const TOKEN_CONTEXT = 'attachment-download';
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
    const limits = this.config.attachments;
    const { fields, file } = await receiveUpload(request, { maxBytes: limits.maxBytes, incomingDir: this.blobs.incomingDir });
    const blobKey = `${randomUUID().replace(/-/g, '').slice(0, 2)}/${randomUUID().replace(/-/g, '')}`;
    let stored = false;
    try {
      const place = checkedFields(fields);
      if (!typeAccepted(file.mimeType, limits.types)) throw AttachmentErrors.typeRefused(file.mimeType);
      await this.blobs.put(blobKey, file.path, file.size, file.mimeType);
      stored = true;
      const attachment: StoredAttachment = {
        attachmentId: randomInt(1, 2 ** 48),
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
        if (!comment) throw AttachmentErrors.commentMissing();
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

  /** Fresh download links of the key's attachments of these ids (those whose comment is gone are left out). */
  async links(apiKeyId: string, attachmentIds: number[], baseUrl: string): Promise<AttachmentLink[]> {
    return (await this.attachments.live(apiKeyId, attachmentIds)).map((attachment) => this.link(apiKeyId, attachment, baseUrl));
  }

  /** The file a download link names, while the link is valid and its comment exists. */
  async download(token: string): Promise<{ attachment: StoredAttachment; body: Readable }> {
    const opened = this.secrets.openToken(token, TOKEN_CONTEXT);
    if (!opened) throw AttachmentErrors.linkInvalid();
    const { k: apiKeyId, a: attachmentId, e: expires } = JSON.parse(opened) as { k: string; a: number; e: number };
    if (Date.now() >= expires) throw AttachmentErrors.linkExpired();
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
    const expires = Date.now() + this.config.attachments.urlTtlSeconds * 1000;
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

/** The upload's form fields, checked; the first wrong one is named. */
function checkedFields(fields: Record<string, string>): { organizationId: string; documentId: string; annotationId: string; commentId: number } {
  for (const [name, check] of Object.entries(UPLOAD_FIELDS)) {
    if (fields[name] === undefined) throw new ApiError('INVALID_ARGUMENT', `${name} is required (a form field).`);
    const problem = check(fields[name]);
    if (problem) throw new ApiError('INVALID_ARGUMENT', `${name} ${problem}`);
  }
  return { organizationId: fields.organizationId!, documentId: fields.documentId!, annotationId: fields.annotationId!, commentId: Number(fields.commentId) };
}

/** Whether `ATTACHMENT_TYPES` accepts the MIME type (`type/*` accepts the whole type). */
export function typeAccepted(mimeType: string, accepted: readonly string[]): boolean {
  const [type] = mimeType.split(';');
  return accepted.some((allowed) => (allowed.endsWith('/*') ? type!.startsWith(allowed.slice(0, -1)) : type === allowed));
}

export { UploadErrors };
