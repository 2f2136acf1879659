import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DocumentMoves, type DocumentMove, type DocumentMoveObserver } from '../directory/document-moves.js';
import type { EntityManager } from 'typeorm';
import { Sql } from '../database/sql.js';
import { moveDocumentColumn } from '../database/document-bodies.js';

/** A stored attachment: the comment it belongs to, what the file is, and its blob. */
export interface StoredAttachment {
  attachmentId: number;
  organizationId: string;
  documentId: string;
  annotationId: string;
  commentId: number;
  name: string;
  mimeType: string;
  size: number;
  blobKey: string;
  createdAt: number;
}

/** An attachment whose comment is gone: its blob is to be deleted, then its row. */
export interface Orphan {
  apiKeyId: string;
  attachmentId: number;
  blobKey: string;
}

type Row = {
  attachment_id: number | string;
  organization_id: string;
  document_id: string;
  annotation_id: string;
  comment_id: number | string;
  name: string;
  mime_type: string;
  size: number | string;
  blob_key: string;
  created_at: number | string;
};

const COLUMNS = 'attachment_id, organization_id, document_id, annotation_id, comment_id, name, mime_type, size, blob_key, created_at';
/** The attachment's comment still exists. */
const COMMENT_EXISTS =
  'EXISTS (SELECT 1 FROM comment c WHERE c.api_key_id = a.api_key_id AND c.organization_id = a.organization_id AND c.annotation_id = a.annotation_id AND c.comment_id = a.comment_id)';

/** The owner of `attachment`. */
@Injectable()
export class AttachmentStore implements DocumentMoveObserver, OnModuleInit {
  constructor(
    private readonly sql: Sql,
    private readonly documentMoves: DocumentMoves,
  ) {}

  onModuleInit(): void {
    this.documentMoves.observers.add(this);
  }

  /** A document's attachments follow it to its new id, in the moving transaction; blobs and download links name the attachment, not the document, so they stay. One statement. */
  async documentMoved(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void> {
    await moveDocumentColumn(this.sql, manager, 'attachment', { apiKeyId, ...move });
  }

  async insert(manager: EntityManager, apiKeyId: string, attachment: StoredAttachment): Promise<void> {
    await this.sql.run(
      manager,
      `INSERT INTO attachment (api_key_id, ${COLUMNS}) VALUES (:apiKeyId, :attachmentId, :organizationId, :documentId, :annotationId, :commentId, :name, :mimeType, :size, :blobKey, :createdAt)`,
      { apiKeyId, ...attachment },
    );
  }

  /** Whether the key has an attachment of this id, in the caller's unit of work (a pre-signed upload's id is used once). */
  async exists(manager: EntityManager, apiKeyId: string, attachmentId: number): Promise<boolean> {
    const rows = await this.sql.run(manager, 'SELECT 1 AS found FROM attachment WHERE api_key_id = :apiKeyId AND attachment_id = :attachmentId', {
      apiKeyId,
      attachmentId,
    });
    return rows.length > 0;
  }

  /**
   * Up to `limit` attachments of one organization on comments `userId` wrote, in attachment id
   * order after `after` (the user-data export). Joins `comment` read only, for its writer.
   */
  async writtenBy(apiKeyId: string, organizationId: string, userId: string, after: number | undefined, limit: number): Promise<StoredAttachment[]> {
    const rows = await this.sql.rows<Row>(
      `SELECT ${COLUMNS.split(', ')
        .map((column) => `a.${column}`)
        .join(
          ', ',
        )} FROM attachment a JOIN comment c ON c.api_key_id = a.api_key_id AND c.organization_id = a.organization_id AND c.annotation_id = a.annotation_id AND c.comment_id = a.comment_id
       WHERE a.api_key_id = :apiKeyId AND a.organization_id = :organizationId AND c.from_user_id = :userId${after !== undefined ? ' AND a.attachment_id > :after' : ''}
       ORDER BY a.attachment_id LIMIT :limit`,
      { apiKeyId, organizationId, userId, limit, ...(after !== undefined ? { after } : {}) },
    );
    return rows.map(fromRow);
  }

  /** The key's attachments of these ids whose comment still exists. */
  async live(apiKeyId: string, attachmentIds: number[]): Promise<StoredAttachment[]> {
    const rows = await this.sql.rows<Row>(
      `SELECT ${COLUMNS} FROM attachment a WHERE a.api_key_id = :apiKeyId AND a.attachment_id IN (:...attachmentIds) AND ${COMMENT_EXISTS}`,
      {
        apiKeyId,
        attachmentIds,
      },
    );
    return rows.map(fromRow);
  }

  /**
   * Up to `limit` attachments whose comment is gone, of every key or (`within`) of one key in a
   * unit of work: their blobs are to be deleted.
   */
  async orphans(limit: number, within?: { manager: EntityManager; apiKeyId: string }): Promise<Orphan[]> {
    const sql = `SELECT api_key_id, attachment_id, blob_key FROM attachment a WHERE ${within ? 'a.api_key_id = :apiKeyId AND ' : ''}NOT ${COMMENT_EXISTS} LIMIT :limit`;
    type OrphanRow = { api_key_id: string; attachment_id: number | string; blob_key: string };
    const rows = within
      ? await this.sql.run<OrphanRow>(within.manager, sql, { limit, apiKeyId: within.apiKeyId })
      : await this.sql.rows<OrphanRow>(sql, { limit });
    return rows.map((row) => ({ apiKeyId: row.api_key_id, attachmentId: Number(row.attachment_id), blobKey: row.blob_key }));
  }

  /** Deletes a row whose blob is gone. */
  async remove(manager: EntityManager, apiKeyId: string, attachmentId: number): Promise<void> {
    await this.sql.run(manager, 'DELETE FROM attachment WHERE api_key_id = :apiKeyId AND attachment_id = :attachmentId', { apiKeyId, attachmentId });
  }

  /** How many attachments are stored and their bytes (`/health`). */
  async totals(): Promise<{ count: number; bytes: number }> {
    const [row] = await this.sql.rows<{ count: number | string; bytes: number | string | null }>(
      'SELECT COUNT(*) AS count, SUM(size) AS bytes FROM attachment',
      {},
    );
    return { count: Number(row?.count ?? 0), bytes: Number(row?.bytes ?? 0) };
  }
}

function fromRow(row: Row): StoredAttachment {
  return {
    attachmentId: Number(row.attachment_id),
    organizationId: row.organization_id,
    documentId: row.document_id,
    annotationId: row.annotation_id,
    commentId: Number(row.comment_id),
    name: row.name,
    mimeType: row.mime_type,
    size: Number(row.size),
    blobKey: row.blob_key,
    createdAt: Number(row.created_at),
  };
}
