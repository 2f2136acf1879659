import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type EntityManager, type Repository } from 'typeorm';
import type { AccessType } from '../common/access-types.js';
import { Conditions, sortedOnceRead, Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { DocumentEntity } from './entities/document.entity.js';
import type { FolderNode } from './folder-store.js';

/** A document row without its key and organization (the caller's scope). */
export type Document = Omit<DocumentEntity, 'apiKeyId' | 'organizationId'>;

/** A new document's fields (documents add). */
export type NewDocument = Pick<Document, 'id' | 'name' | 'accessType' | 'disabled' | 'metadata'>;

/** A document with what decides its access: its own type, its disabled flag and its folder. */
export interface DocumentPlacement {
  id: string;
  folderId: string | null;
  accessType: AccessType | null;
  disabled: boolean;
  /** The document's folder, when it has one and it exists. */
  folder?: FolderNode;
}

type DocumentRow = {
  id: string;
  name: string | null;
  folder_id: string | null;
  access_type: AccessType | null;
  disabled: boolean | number;
  metadata: string;
  created_at: number | string;
  last_updated: number | string;
};

function toDocument(row: DocumentRow): Document {
  return {
    id: row.id,
    name: row.name,
    folderId: row.folder_id,
    accessType: row.access_type,
    disabled: Boolean(row.disabled),
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: Number(row.created_at),
    lastUpdated: Number(row.last_updated),
  };
}

/** How `DocumentStore.names` and `holdExisting` key a document. */
export function documentKey(organizationId: string, documentId: string): string {
  return JSON.stringify([organizationId, documentId]);
}

/**
 * Documents of one key among several places, by their organizations and ids (a superset when
 * places cross; callers key the rows by `documentKey`), with `placesParameters`.
 */
const PLACES_FILTER = 'api_key_id = :apiKeyId AND organization_id IN (:...organizationIds) AND id IN (:...documentIds)';

function placesParameters(apiKeyId: string, places: readonly { organizationId: string; documentId: string }[]) {
  return { apiKeyId, organizationIds: [...new Set(places.map((d) => d.organizationId))], documentIds: [...new Set(places.map((d) => d.documentId))] };
}

const DOCUMENT_COLUMNS = ['api_key_id', 'organization_id', 'id', 'name', 'folder_id', 'access_type', 'disabled', 'metadata', 'created_at', 'last_updated'];
/** A document row in `DOCUMENT_COLUMNS`' order. */
type DocumentValues = [string, string, string, string | null, string | null, string | null, boolean, string, number, number];

/**
 * Owner of `document`. Plain SQL where a request's path reads many rows or must answer what a
 * statement did (pages: building and hydrating 1,000 entities through TypeORM costs more than
 * the read; names for every mail batch; inserts that pass over existing ids; the access path's
 * join with each document's folder, read only); entities for the locked reads and updates of
 * the documents operations.
 */
@Injectable()
export class DocumentStore {
  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
    @InjectRepository(DocumentEntity) private readonly documents: Repository<DocumentEntity>,
  ) {}

  /**
   * Names of documents of one key (`documentName`, null when unnamed), keyed by
   * `documentKey`; missing documents are absent. One query.
   */
  async names(apiKeyId: string, documents: readonly { organizationId: string; documentId: string }[]): Promise<Map<string, string | null>> {
    const names = new Map<string, string | null>();
    if (!documents.length) return names;
    const rows = await this.sql.rows<{ organization_id: string; id: string; name: string | null }>(
      `SELECT organization_id, id, name FROM document WHERE ${PLACES_FILTER}`,
      placesParameters(apiKeyId, documents),
    );
    for (const row of rows) names.set(documentKey(row.organization_id, row.id), row.name);
    return names;
  }

  /** Which of the places exist (as `documentKey`s), kept from being deleted until `manager`'s unit of work ends. One query. */
  async holdExisting(manager: EntityManager, apiKeyId: string, places: readonly { organizationId: string; documentId: string }[]): Promise<Set<string>> {
    if (!places.length) return new Set();
    const rows = await this.sql.lockRows<{ organization_id: string; id: string }>(
      manager,
      `SELECT organization_id, id FROM document WHERE ${PLACES_FILTER}`,
      placesParameters(apiKeyId, places),
      { readOnly: true },
    );
    return new Set(rows.map((row) => documentKey(row.organization_id, row.id)));
  }

  /** Whether the document exists (outside any unit of work: the usual case of a write's place, one read). */
  async exists(apiKeyId: string, organizationId: string, documentId: string): Promise<boolean> {
    const found = await this.sql.rows(
      'SELECT 1 AS found FROM document WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id = :documentId',
      {
        apiKeyId,
        organizationId,
        documentId,
      },
    );
    return found.length > 0;
  }

  /** Which of `ids` exist in the organization. */
  async existingIds(manager: EntityManager | undefined, apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await (manager ?? this.documents.manager).find(DocumentEntity, {
      where: { apiKeyId, organizationId, id: In([...ids]) },
      select: { id: true },
    });
    return new Set(rows.map((row) => row.id));
  }

  /** Ids of the documents directly in a folder (comment annotations get's `folderId`). */
  async idsInFolder(apiKeyId: string, organizationId: string, folderId: string): Promise<string[]> {
    const rows = await this.sql.rows<{ id: string }>(
      'SELECT id FROM document WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND folder_id = :folderId',
      { apiKeyId, organizationId, folderId },
    );
    return rows.map((row) => row.id);
  }

  /**
   * Up to `limit` documents of the organization after `after` in (createdAt, id) order, among
   * `documentIds` and in `folderId` (null: top level) when given, within `maxBytes` of names and
   * metadata (`cut` when that stopped the page early).
   */
  async page(
    apiKeyId: string,
    organizationId: string,
    filter: { documentIds?: string[]; folderId?: string | null },
    after: [createdAt: number, id: string] | undefined,
    limit: number,
    maxBytes: number,
  ): Promise<{ documents: Document[]; cut: boolean }> {
    const where = new Conditions().equal('api_key_id', apiKeyId).equal('organization_id', organizationId).among('id', filter.documentIds);
    if (filter.folderId === null) where.add('folder_id IS NULL');
    else where.equal('folder_id', filter.folderId);
    if (after) where.add('(created_at, id) > (:afterCreatedAt, :afterId)', { afterCreatedAt: after[0], afterId: after[1] });
    const { rows, cut } = await this.sql.rowsWithinBytes<DocumentRow>({
      select: 'id, name, folder_id, access_type, disabled, metadata, created_at, last_updated',
      from: `document WHERE ${where}`,
      orderBy: `${filter.documentIds ? sortedOnceRead('created_at') : 'created_at'}, id`,
      size: 'LENGTH(metadata) + COALESCE(LENGTH(name), 0)',
      parameters: where.parameters,
      limit,
      maxBytes,
    });
    return { documents: rows.map(toDocument), cut };
  }

  /** The documents of an organization by id, each with its folder, in one query (a join, read only); missing ones are absent. */
  async withFolders(apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<DocumentPlacement[]> {
    if (!ids.length) return [];
    const rows = await this.sql.rows<{
      id: string;
      folder_id: string | null;
      access_type: AccessType | null;
      disabled: boolean | number;
      folder_path: string | null;
      folder_access_type: AccessType | null;
    }>(
      `SELECT d.id, d.folder_id, d.access_type, d.disabled, f.path AS folder_path, f.access_type AS folder_access_type FROM document d
        LEFT JOIN folder f ON f.api_key_id = d.api_key_id AND f.organization_id = d.organization_id AND f.id = d.folder_id
        WHERE d.api_key_id = :apiKeyId AND d.organization_id = :organizationId AND d.id IN (:...ids)`,
      { apiKeyId, organizationId, ids },
    );
    return rows.map((d) => ({
      id: d.id,
      folderId: d.folder_id,
      accessType: d.access_type,
      disabled: Boolean(d.disabled),
      ...(d.folder_id && d.folder_path !== null ? { folder: { id: d.folder_id, path: d.folder_path, accessType: d.folder_access_type } } : {}),
    }));
  }

  /**
   * Adds the documents that do not exist, passing over those that do or that another write
   * creates meanwhile; answers the ids added. One statement.
   */
  async insertNew(
    manager: EntityManager,
    apiKeyId: string,
    organizationId: string,
    folderId: string | null,
    documents: NewDocument[],
    at: number,
  ): Promise<Set<string>> {
    return this.insertRows(
      manager,
      documents.map((d) => [apiKeyId, organizationId, d.id, d.name, folderId, d.accessType, d.disabled, JSON.stringify(d.metadata), at, at]),
    );
  }

  /**
   * Creates the named documents that do not exist yet, unnamed, at top level. One cached
   * statement (plain SQL): activities add, CRDT writes and presence run it on every call, where
   * TypeORM's query builder made the statement anew each time (and, before
   * `bindEmbeddedIntegers`, wrote its timestamps into an SQLite statement's text, so each call
   * was also prepared anew: docs/reference/rules.md).
   */
  async ensure(manager: EntityManager, apiKeyId: string, documents: { organizationId: string; id: string }[]): Promise<void> {
    if (!documents.length) return;
    const now = Date.now();
    await this.insertRows(
      manager,
      documents.map((d) => [apiKeyId, d.organizationId, d.id, null, null, null, false, '{}', now, now]),
    );
  }

  /** The documents of `ids` that exist, locked until the transaction ends. */
  async lockMany(manager: EntityManager, apiKeyId: string, organizationId: string, ids: string[]): Promise<Map<string, DocumentEntity>> {
    const rows = await manager.find(DocumentEntity, { where: { apiKeyId, organizationId, id: In(ids) }, ...this.transactions.rowLock });
    return new Map(rows.map((d) => [d.id, d]));
  }

  /** Writes changed documents whole (all of which exist, so it only updates). */
  async putChanged(manager: EntityManager, documents: DocumentEntity[]): Promise<void> {
    if (!documents.length) return;
    // TypeORM's partial-entity type cannot follow JSON columns typed as records.
    await manager
      .createQueryBuilder()
      .insert()
      .into(DocumentEntity)
      .values(documents as never[])
      .orUpdate(['name', 'access_type', 'disabled', 'metadata', 'last_updated'], ['api_key_id', 'organization_id', 'id'])
      .execute();
  }

  /** Sets fields (folder, access type, disabled) on the documents of `ids`. */
  async setFields(
    manager: EntityManager,
    apiKeyId: string,
    organizationId: string,
    ids: readonly string[],
    fields: Partial<Pick<DocumentEntity, 'folderId' | 'accessType' | 'disabled'>>,
    at: number,
  ): Promise<void> {
    if (ids.length) await manager.update(DocumentEntity, { apiKeyId, organizationId, id: In([...ids]) }, { ...fields, lastUpdated: at });
  }

  async delete(manager: EntityManager, apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<void> {
    if (ids.length) await manager.delete(DocumentEntity, { apiKeyId, organizationId, id: In([...ids]) });
  }

  /**
   * Copies a document's row under a new id (documents migrate): the row is read locked (a
   * delete of the document waits for the move, and sees it gone) and copied as stored, passing
   * over a document of the new id however recently another write made it. Answers `missing`
   * when `from` names no document, `exists` when `to` names one.
   */
  async copyAs(manager: EntityManager, apiKeyId: string, organizationId: string, from: string, to: string): Promise<'copied' | 'missing' | 'exists'> {
    const [source] = await this.sql.lockRows<DocumentRow>(
      manager,
      'SELECT id, name, folder_id, access_type, disabled, metadata, created_at, last_updated FROM document WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id = :id',
      { apiKeyId, organizationId, id: from },
    );
    if (!source) return 'missing';
    const inserted = await this.insertRows(manager, [
      [
        apiKeyId,
        organizationId,
        to,
        source.name,
        source.folder_id,
        source.access_type,
        Boolean(source.disabled),
        source.metadata,
        Number(source.created_at),
        Date.now(),
      ],
    ]);
    return inserted.size ? 'copied' : 'exists';
  }

  /**
   * Inserts document rows, passing over any whose id exists, however recently another write made
   * it; answers the ids inserted. One cached statement per row count.
   */
  private async insertRows(manager: EntityManager, rows: DocumentValues[]): Promise<Set<string>> {
    const inserted = await this.sql.insertNew(manager, 'document', DOCUMENT_COLUMNS, rows, ['api_key_id', 'organization_id', 'id'], 'id');
    return new Set(inserted.map(String));
  }

  /** Deletes one document by id (documents migrate's old row, once nothing refers to it). */
  async deleteOne(manager: EntityManager, apiKeyId: string, organizationId: string, id: string): Promise<void> {
    await this.sql.run(manager, 'DELETE FROM document WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id = :id', {
      apiKeyId,
      organizationId,
      id,
    });
  }
}
