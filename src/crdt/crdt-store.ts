import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DocumentMoves, type DocumentMove, type DocumentMoveObserver } from '../directory/document-moves.js';
import type { EntityManager } from 'typeorm';
import { Observers } from '../common/observers.js';
import { PAGE_BYTES } from '../common/paging.js';
import { Conditions, Sql } from '../database/sql.js';
import type { CrdtType } from './crdt-data.js';
import { moveDocumentColumn } from '../database/document-bodies.js';

/** Where an editor's content lives. */
export interface EditorPlace {
  organizationId: string;
  documentId: string;
  editorId: string;
}

/** An editor's row: its Yjs state and, beside it, the JSON text of its view. */
export interface StoredEditor extends EditorPlace {
  type: CrdtType;
  contentKey: string;
  clientId: number;
  state: Uint8Array;
  /** JSON text of the view callers read. */
  dataJson: string;
  lastUpdate: number;
  lastUpdatedBy: string | null;
  /** The session of the last write, when its writer sent one (`crdt/get`'s `sessionId`). */
  sessionId: string | null;
}

/** An editor a user wrote last (its content is the document's), for the user-data export. */
export interface EditorWrittenBy {
  documentId: string;
  editorId: string;
  type: CrdtType;
  /** ms. */
  lastUpdate: number;
}

/**
 * What other modules learn of CRDT writes (the event pipeline's `crdt.update_data`), in the
 * writing transaction. `writers`: the users whose edits the write stores, the editor's
 * `lastUpdatedBy` last; one for a REST write, several when a live room stores its users'
 * typing at once.
 */
export interface CrdtObserver {
  crdtWritten(manager: EntityManager, apiKeyId: string, editor: StoredEditor, writers: readonly (string | null)[]): Promise<void>;
}

type EditorRow = {
  organization_id: string;
  document_id: string;
  editor_id: string;
  type: CrdtType;
  content_key: string;
  client_id: number | string;
  state: Uint8Array;
  data: string;
  last_update: number | string;
  last_updated_by: string | null;
  session_id: string | null;
};

const SELECT =
  'SELECT organization_id, document_id, editor_id, type, content_key, client_id, state, data, last_update, last_updated_by, session_id FROM crdt_editor';
const WHERE_EDITOR = 'WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND document_id = :documentId AND editor_id = :editorId';

/** A stored row of `records`. */
type EditorRecordRow = {
  editor_id: string;
  data: string;
  last_update: number | string;
  last_updated_by: string | null;
  session_id: string | null;
  created_at: number | string;
};

/** An editor as `crdt/get` answers it, as JSON text spliced from its stored view, with its keyset position. */
export interface EditorRecordJson {
  json: string;
  createdAt: number;
  editorId: string;
}

/**
 * The owner of `crdt_editor`, and the one place editors' content is written; observers hear of
 * every write. Plain SQL throughout: the stored JSON view is spliced into answers unparsed, and
 * the binary state and locked reads need `Sql`'s per-dialect forms.
 */
@Injectable()
export class CrdtStore implements DocumentMoveObserver, OnModuleInit {
  readonly observers = new Observers<CrdtObserver>();

  constructor(
    private readonly sql: Sql,
    private readonly documentMoves: DocumentMoves,
  ) {}

  onModuleInit(): void {
    this.documentMoves.observers.add(this);
  }

  /** A document's editors follow it to its new id, in the moving transaction (both document rows exist meanwhile, so the foreign key holds). One statement; not a write of content, so observers hear nothing. */
  async documentMoved(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void> {
    await moveDocumentColumn(this.sql, manager, 'crdt_editor', { apiKeyId, ...move });
  }

  /** The editor, locked for this unit of work so writes to it take turns. */
  async lock(manager: EntityManager, apiKeyId: string, place: EditorPlace): Promise<StoredEditor | undefined> {
    const [row] = await this.sql.lockRows<EditorRow>(manager, `${SELECT} ${WHERE_EDITOR}`, { apiKeyId, ...place });
    return row && fromRow(row);
  }

  /** Whether the editor exists (without reading its content). */
  async exists(apiKeyId: string, place: EditorPlace): Promise<boolean> {
    return (await this.sql.rows(`SELECT 1 AS found FROM crdt_editor ${WHERE_EDITOR}`, { apiKeyId, ...place })).length > 0;
  }

  /** The editor as stored now (no lock). */
  async find(apiKeyId: string, place: EditorPlace): Promise<StoredEditor | undefined> {
    const [row] = await this.sql.rows<EditorRow>(`${SELECT} ${WHERE_EDITOR}`, { apiKeyId, ...place });
    return row && fromRow(row);
  }

  /**
   * A page of a document's editors (or the one named), in creation order after `after`, cut
   * short once their stored views pass `PAGE_BYTES` (see `Sql.rowsWithinBytes`).
   */
  async records(
    apiKeyId: string,
    place: { organizationId: string; documentId: string; editorId?: string },
    after: [createdAt: number, editorId: string] | undefined,
    limit: number,
  ): Promise<{ records: EditorRecordJson[]; cut: boolean }> {
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .equal('organization_id', place.organizationId)
      .equal('document_id', place.documentId)
      .equal('editor_id', place.editorId);
    if (after) where.add('(created_at, editor_id) > (:afterCreated, :afterEditor)', { afterCreated: after[0], afterEditor: after[1] });
    const { rows, cut } = await this.sql.rowsWithinBytes<EditorRecordRow>({
      select: 'editor_id, data, last_update, last_updated_by, session_id, created_at',
      from: `crdt_editor WHERE ${where}`,
      orderBy: 'created_at, editor_id',
      size: 'LENGTH(data)',
      parameters: where.parameters,
      limit,
      maxBytes: PAGE_BYTES,
    });
    const records = rows.map((row) => ({
      json: `{"id":${JSON.stringify(row.editor_id)},"data":${row.data},"lastUpdate":"${new Date(Number(row.last_update)).toISOString()}","lastUpdatedBy":${JSON.stringify(row.last_updated_by)},"sessionId":${JSON.stringify(row.session_id)}}`,
      createdAt: Number(row.created_at),
      editorId: row.editor_id,
    }));
    return { records, cut };
  }

  /** Creates the editor; false when it already exists (nothing is written then). */
  async create(manager: EntityManager, apiKeyId: string, editor: StoredEditor): Promise<boolean> {
    const inserted = await this.sql.run<{ editor_id: string }>(
      manager,
      `INSERT INTO crdt_editor (api_key_id, organization_id, document_id, editor_id, type, content_key, client_id, state, data, last_update, last_updated_by, session_id, created_at)
        VALUES (:apiKeyId, :organizationId, :documentId, :editorId, :type, :contentKey, :clientId, :state, :dataJson, :lastUpdate, :lastUpdatedBy, :sessionId, :lastUpdate)
        ON CONFLICT (api_key_id, organization_id, document_id, editor_id) DO NOTHING RETURNING editor_id`,
      { apiKeyId, ...editor },
    );
    if (!inserted.length) return false;
    await this.observers.notify((observer) => observer.crdtWritten(manager, apiKeyId, editor, [editor.lastUpdatedBy]));
    return true;
  }

  /** Stores new content of an editor read with `lock` in the same unit of work, written by `writers` (see `CrdtObserver`). */
  async save(manager: EntityManager, apiKeyId: string, editor: StoredEditor, writers: readonly (string | null)[]): Promise<void> {
    await this.sql.run(
      manager,
      `UPDATE crdt_editor SET state = :state, data = :dataJson, last_update = :lastUpdate, last_updated_by = :lastUpdatedBy, session_id = :sessionId ${WHERE_EDITOR}`,
      {
        apiKeyId,
        organizationId: editor.organizationId,
        documentId: editor.documentId,
        editorId: editor.editorId,
        state: editor.state,
        dataJson: editor.dataJson,
        lastUpdate: editor.lastUpdate,
        lastUpdatedBy: editor.lastUpdatedBy,
        sessionId: editor.sessionId,
      },
    );
    await this.observers.notify((observer) => observer.crdtWritten(manager, apiKeyId, editor, writers));
  }

  /**
   * The editors of the organization the user wrote last, for the user-data export: by
   * (document, editor), after `after`, `limit` at most. One query.
   */
  async editorsLastWrittenBy(
    apiKeyId: string,
    organizationId: string,
    userId: string,
    after: [documentId: string, editorId: string] | undefined,
    limit: number,
  ): Promise<EditorWrittenBy[]> {
    // Plain SQL: a keyset page (`Sql.rowsAfter`), numbers converted here.
    const rows = await this.sql.rowsAfter<{ document_id: string; editor_id: string; type: CrdtType; last_update: number | string }>(
      'SELECT document_id, editor_id, type, last_update FROM crdt_editor WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND last_updated_by = :userId',
      ['document_id', 'editor_id'],
      { apiKeyId, organizationId, userId },
      after,
      limit,
    );
    return rows.map((row) => ({ documentId: row.document_id, editorId: row.editor_id, type: row.type, lastUpdate: Number(row.last_update) }));
  }

  /**
   * Takes the users out of the attribution of editors they wrote last, in the given organizations
   * (null: all of the key's), in the erasing unit of work. The content is the document's and
   * stays; the attribution becomes what a write naming no user leaves (contract part 7:
   * `lastUpdatedBy` null, and no `sessionId`). No observer hears of it: no content changes.
   * One statement.
   */
  async forgetWriters(manager: EntityManager, apiKeyId: string, userIds: string[], organizationIds: string[] | null): Promise<void> {
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .among('last_updated_by', userIds)
      .among('organization_id', organizationIds ?? undefined);
    await this.sql.run(manager, `UPDATE crdt_editor SET last_updated_by = NULL, session_id = NULL WHERE ${where}`, where.parameters);
  }

  /** Deletes the named editors of a document, or all of them. */
  async delete(manager: EntityManager, apiKeyId: string, organizationId: string, documentId: string, editorIds?: string[]): Promise<void> {
    await this.sql.run(
      manager,
      `DELETE FROM crdt_editor WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND document_id = :documentId${editorIds ? ' AND editor_id IN (:...editorIds)' : ''}`,
      { apiKeyId, organizationId, documentId, ...(editorIds ? { editorIds } : {}) },
    );
  }
}

function fromRow(row: EditorRow): StoredEditor {
  return {
    organizationId: row.organization_id,
    documentId: row.document_id,
    editorId: row.editor_id,
    type: row.type,
    contentKey: row.content_key,
    clientId: Number(row.client_id),
    state: row.state,
    dataJson: row.data,
    lastUpdate: Number(row.last_update),
    lastUpdatedBy: row.last_updated_by,
    sessionId: row.session_id,
  };
}
