import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type EntityManager, type Repository } from 'typeorm';
import { effectiveDocumentAccess } from './effective-access.js';
import { PageTokens, PAGE_BYTES, PAGE_SIZE } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import type { AccessType } from '../common/access-types.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import { Conditions, Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, okWith, splitMetadata, type ItemResult, type ItemResults } from '../common/batch.js';
import { DirectoryDeletes } from './directory-deletes.js';
import { DocumentMoves, type DocumentMove } from './document-moves.js';
import { DirectoryErrors, DirectoryMessages } from './directory.errors.js';
import { DOCUMENT_FIELDS, type AddDocumentsRequest, type DocumentInput, type GetDocumentsRequest, type MoveDocumentsRequest } from './dto/document.dto.js';
import { DocumentEntity } from './entities/document.entity.js';
import { ROOT } from './folder-paths.js';
import { FoldersService } from './folders.service.js';
import { OrganizationStore } from './organization-store.js';

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

function toDocument(row: DocumentRow): Omit<DocumentEntity, 'apiKeyId' | 'organizationId'> {
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

/** How `DocumentsService.names` keys a document. */
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

/** A requested document id that names no document (documents get's `notFound`), worded as permissions get words one. */
export interface MissingDocument {
  error: string;
  errorCode: 'does_not_exist';
}

/** A document as returned: caller metadata spread at the top level, known fields win. */
export type DocumentRecord = Record<string, unknown> & {
  id: string;
  documentName: string | null;
  disabled: boolean;
  accessType: AccessType;
  folderId?: string;
};

@Injectable()
export class DocumentsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly organizations: OrganizationStore,
    private readonly folders: FoldersService,
    private readonly apiKeys: ApiKeyStore,
    private readonly pageTokens: PageTokens,
    private readonly sql: Sql,
    private readonly deletes: DirectoryDeletes,
    private readonly moves: DocumentMoves,
    @InjectRepository(DocumentEntity) private readonly documents: Repository<DocumentEntity>,
  ) {}

  /**
   * Names of documents of one key (`documentName`, null when unnamed), keyed by
   * `organizationId` and document id; missing documents are absent. One query.
   */
  async names(apiKeyId: string, documents: readonly { organizationId: string; documentId: string }[]): Promise<Map<string, string | null>> {
    const names = new Map<string, string | null>();
    if (!documents.length) return names;
    // Plain SQL: every mail batch reads it; three text columns, nothing for entities to convert.
    const rows = await this.sql.rows<{ organization_id: string; id: string; name: string | null }>(
      `SELECT organization_id, id, name FROM document WHERE ${PLACES_FILTER}`,
      placesParameters(apiKeyId, documents),
    );
    for (const row of rows) names.set(documentKey(row.organization_id, row.id), row.name);
    return names;
  }

  /**
   * Which of the places exist (as `documentKey`s), kept from being deleted until `manager`'s unit
   * of work ends: what is written about them in it cannot outlive them (a delete waits, then
   * takes what was written with the document). Their organizations are held first, in the
   * order an organization's delete locks them (see `OrganizationStore.hold`).
   */
  async holdExisting(manager: EntityManager, apiKeyId: string, places: readonly { organizationId: string; documentId: string }[]): Promise<Set<string>> {
    if (!places.length) return new Set();
    await this.organizations.hold(
      manager,
      apiKeyId,
      places.map((place) => place.organizationId),
    );
    const rows = await this.sql.lockRows<{ organization_id: string; id: string }>(
      manager,
      `SELECT organization_id, id FROM document WHERE ${PLACES_FILTER}`,
      placesParameters(apiKeyId, places),
      { readOnly: true },
    );
    return new Set(rows.map((row) => documentKey(row.organization_id, row.id)));
  }

  /** Adds new documents (existing ones fail as items); one insert for the batch. */
  async add(principal: ApiKeyPrincipal, request: AddDocumentsRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    return this.transactions.run(async (manager) => {
      await this.organizations.require(manager, apiKeyId, organizationId, request.createOrganization === true);
      const folderId = request.folderId === undefined || request.folderId === ROOT ? null : request.folderId;
      if (folderId !== null) await this.folders.requireFolder(manager, apiKeyId, organizationId, folderId, request.createFolder === true);
      // One statement that passes over documents that exist, or that another write creates
      // meanwhile (activities add names documents too): those answer "already exists".
      const now = Date.now();
      const inserted = new Set(
        await this.sql.insertNew(
          manager,
          'document',
          ['api_key_id', 'organization_id', 'id', 'name', 'folder_id', 'access_type', 'disabled', 'metadata', 'created_at', 'last_updated'],
          request.documents.map((input) => [
            apiKeyId,
            organizationId,
            input.documentId,
            input.documentName ?? null,
            folderId,
            (input.accessType as AccessType | undefined) ?? null,
            input.disabled ?? false,
            JSON.stringify(splitMetadata(input, DOCUMENT_FIELDS)),
            now,
            now,
          ]),
          ['api_key_id', 'organization_id', 'id'],
          'id',
        ),
      );
      return Object.fromEntries(
        request.documents.map((d) => [
          d.documentId,
          inserted.has(d.documentId) ? ok(d.documentId, DirectoryMessages.documentAdded) : failed(d.documentId, DirectoryMessages.documentExists),
        ]),
      );
    });
  }

  /**
   * Keyset pages over (createdAt, id) with the effective accessType of each document: the page,
   * its folders and their ancestors, in three queries whatever the page size. Ids of
   * `documentIds` that name no document of the organization are answered in `notFound` (one
   * more query, unless this is a first and last page without a folder filter, which shows them).
   */
  async get(
    principal: ApiKeyPrincipal,
    request: GetDocumentsRequest,
  ): Promise<{ data: DocumentRecord[]; pageToken?: string; notFound?: Record<string, MissingDocument> }> {
    const { apiKeyId } = principal;
    const pageSize = request.pageSize ?? PAGE_SIZE.default;
    const filters = { organizationId: request.organizationId, documentIds: request.documentIds ?? null, folderId: request.folderId ?? null };
    const after = request.pageToken ? this.pageTokens.decode<[number, string]>(apiKeyId, 'documents/get', filters, request.pageToken) : undefined;
    // Plain SQL: building and hydrating 1000 entities through TypeORM costs more than the read.
    const where = new Conditions().equal('api_key_id', apiKeyId).equal('organization_id', request.organizationId).among('id', request.documentIds);
    if (request.folderId === ROOT) where.add('folder_id IS NULL');
    else where.equal('folder_id', request.folderId);
    if (after) where.add('(created_at, id) > (:afterCreatedAt, :afterId)', { afterCreatedAt: after[0], afterId: after[1] });
    const { rows, cut } = await this.sql.rowsWithinBytes<DocumentRow>({
      select: 'id, name, folder_id, access_type, disabled, metadata, created_at, last_updated',
      from: `document WHERE ${where}`,
      orderBy: 'created_at, id',
      size: 'LENGTH(metadata) + COALESCE(LENGTH(name), 0)',
      parameters: where.parameters,
      limit: pageSize + 1,
      maxBytes: PAGE_BYTES,
    });
    const { items: page, next } = this.pageTokens.page(
      rows.map(toDocument),
      pageSize,
      apiKeyId,
      'documents/get',
      filters,
      (last) => [last.createdAt, last.id],
      cut,
    );
    const keyDefault = (await this.apiKeys.settings(apiKeyId)).defaultDocumentAccessType;
    const folderAccess = await this.folders.effectiveAccess(
      this.documents.manager,
      apiKeyId,
      request.organizationId,
      page.flatMap((d) => (d.folderId ? [d.folderId] : [])),
      keyDefault,
    );
    let notFound: Record<string, MissingDocument> | undefined;
    if (request.documentIds?.length) {
      const requested = [...new Set(request.documentIds)];
      // A document outside `folderId`, or on another page, exists all the same.
      const found =
        !after && !next && request.folderId === undefined
          ? new Set(page.map((d) => d.id))
          : await this.existingIds(this.documents.manager, apiKeyId, request.organizationId, requested);
      const missing = requested.filter((id) => !found.has(id));
      if (missing.length)
        notFound = Object.fromEntries(missing.map((id) => [id, { error: DirectoryMessages.documentMissing, errorCode: 'does_not_exist' as const }]));
    }
    return {
      data: page.map(({ metadata: { folderId: _notTheFolder, ...metadata }, ...d }) => ({
        // A `folderId` key in the caller's metadata would read as the folder of a top-level document.
        ...metadata,
        id: d.id,
        documentName: d.name,
        disabled: d.disabled,
        accessType: effectiveDocumentAccess(d.accessType, d.folderId ? folderAccess.get(d.folderId) : undefined, keyDefault),
        ...(d.folderId ? { folderId: d.folderId } : {}),
        createdAt: d.createdAt,
        lastUpdated: d.lastUpdated,
      })),
      pageToken: next,
      notFound,
    };
  }

  /**
   * The organization and document a write names, each created when asked and missing, else
   * required (NOT_FOUND), in the write's unit of work: a write that then fails leaves nothing
   * behind, and the audience reads the write makes afterwards (comments, notifications) run on
   * the unit's connection, so they find a document it just created.
   */
  async requirePlace(
    manager: EntityManager,
    apiKeyId: string,
    place: { organizationId: string; documentId: string; createOrganization?: boolean; createDocument?: boolean },
  ): Promise<void> {
    // The usual case, a document that exists (so does its organization), is one read.
    const found = await this.sql.rows(
      'SELECT 1 AS found FROM document WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id = :documentId',
      { apiKeyId, organizationId: place.organizationId, documentId: place.documentId },
    );
    if (found.length) return;
    await this.organizations.require(manager, apiKeyId, place.organizationId, place.createOrganization === true);
    await this.requireDocument(manager, apiKeyId, place.organizationId, place.documentId, place.createDocument === true);
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
   * The organization and the document a write names, each created when missing (contract part
   * 4: activities add and CRDT writes); a created document is top level.
   */
  async ensureDocument(manager: EntityManager, apiKeyId: string, organizationId: string, documentId: string): Promise<void> {
    await this.organizations.require(manager, apiKeyId, organizationId, true);
    await this.ensureDocuments(manager, apiKeyId, [{ organizationId, id: documentId }]);
  }

  /**
   * The document a write names (users add): created at top level when missing and `create` is
   * set, else it must exist (NOT_FOUND `Document does not exist`).
   */
  async requireDocument(manager: EntityManager, apiKeyId: string, organizationId: string, documentId: string, create: boolean): Promise<void> {
    if (create) await this.ensureDocuments(manager, apiKeyId, [{ organizationId, id: documentId }]);
    else if (!(await this.existingIds(manager, apiKeyId, organizationId, [documentId])).size) throw DirectoryErrors.documentMissing();
  }

  /**
   * Creates the named documents that do not exist yet, at top level (users add and permissions
   * add name documents the caller may not have added). One statement.
   */
  async ensureDocuments(manager: EntityManager, apiKeyId: string, documents: { organizationId: string; id: string }[]): Promise<void> {
    if (!documents.length) return;
    const now = Date.now();
    await manager
      .createQueryBuilder()
      .insert()
      .into(DocumentEntity)
      .values(
        documents.map((d) => ({
          apiKeyId,
          organizationId: d.organizationId,
          id: d.id,
          name: null,
          folderId: null,
          accessType: null,
          disabled: false,
          metadata: {} as never,
          createdAt: now,
          lastUpdated: now,
        })),
      )
      .orIgnore()
      .execute();
  }

  /**
   * Updates name, flags and metadata (merged) of existing documents: one read, then one upsert
   * of the changed rows (all of which exist, so it only updates).
   */
  async update(principal: ApiKeyPrincipal, organizationId: string, items: DocumentInput[]): Promise<ItemResults> {
    const { apiKeyId } = principal;
    return this.transactions.run(async (manager) => {
      const current = new Map(
        (await manager.find(DocumentEntity, { where: { apiKeyId, organizationId, id: In(items.map((i) => i.documentId)) }, ...this.transactions.rowLock })).map(
          (d) => [d.id, d],
        ),
      );
      const now = Date.now();
      const changed = items.flatMap((item): DocumentEntity[] => {
        const before = current.get(item.documentId);
        if (!before) return [];
        return [
          {
            ...before,
            name: item.documentName ?? before.name,
            accessType: (item.accessType as AccessType | undefined) ?? before.accessType,
            disabled: item.disabled ?? before.disabled,
            metadata: { ...before.metadata, ...splitMetadata(item, DOCUMENT_FIELDS) },
            lastUpdated: now,
          },
        ];
      });
      if (changed.length) {
        // TypeORM's partial-entity type cannot follow JSON columns typed as records.
        await manager
          .createQueryBuilder()
          .insert()
          .into(DocumentEntity)
          .values(changed as never[])
          .orUpdate(['name', 'access_type', 'disabled', 'metadata', 'last_updated'], ['api_key_id', 'organization_id', 'id'])
          .execute();
      }
      return Object.fromEntries(
        items.map((i) => [
          i.documentId,
          current.has(i.documentId) ? ok(i.documentId, DirectoryMessages.documentUpdated) : failed(i.documentId, DirectoryMessages.documentMissing),
        ]),
      );
    });
  }

  /** Deletes documents, and announces it (access removes the grants on them). */
  async delete(principal: ApiKeyPrincipal, organizationId: string, ids: string[]): Promise<ItemResults> {
    const { apiKeyId } = principal;
    return this.transactions.run(async (manager) => {
      const existing = [...(await this.existingIds(manager, apiKeyId, organizationId, ids))];
      if (existing.length) {
        await manager.delete(DocumentEntity, { apiKeyId, organizationId, id: In(existing) });
        await this.deletes.announce(manager, apiKeyId, organizationId, { folderIds: [], documentIds: existing });
      }
      return this.itemResults(ids, new Set(existing), DirectoryMessages.documentDeleted);
    });
  }

  /**
   * Gives a document a new id with everything about it (documents migrate), in `manager`'s unit
   * of work, whose caller has locked the organization: the row is copied under the new id, every
   * owner of rows about the document moves them (`DocumentMoves`), and the old row goes last, when
   * nothing refers to it any more. NOT_FOUND when `from` names no document, ALREADY_EXISTS when
   * `to` names one.
   */
  async rekey(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void> {
    const where = 'api_key_id = :apiKeyId AND organization_id = :organizationId AND id = :id';
    // Plain SQL: a locked read (a delete of the document waits for the move, and sees it gone)
    // and a copy of the row as stored, which no entity needs to convert.
    const [source] = await this.sql.lockRows<DocumentRow>(
      manager,
      `SELECT id, name, folder_id, access_type, disabled, metadata, created_at, last_updated FROM document WHERE ${where}`,
      { apiKeyId, organizationId: move.organizationId, id: move.from },
    );
    if (!source) throw DirectoryErrors.documentMissing();
    // Passes over a document of the new id, however recently another write made it.
    const inserted = await this.sql.insertNew(
      manager,
      'document',
      ['api_key_id', 'organization_id', 'id', 'name', 'folder_id', 'access_type', 'disabled', 'metadata', 'created_at', 'last_updated'],
      [
        [
          apiKeyId,
          move.organizationId,
          move.to,
          source.name,
          source.folder_id,
          source.access_type,
          Boolean(source.disabled),
          source.metadata,
          Number(source.created_at),
          Date.now(),
        ],
      ],
      ['api_key_id', 'organization_id', 'id'],
      'id',
    );
    if (!inserted.length) throw DirectoryErrors.documentExists();
    await this.moves.announce(manager, apiKeyId, move);
    await this.sql.run(manager, `DELETE FROM document WHERE ${where}`, { apiKeyId, organizationId: move.organizationId, id: move.from });
  }

  /** Moves documents into a folder, or out of any folder with `root`; an unknown target is NOT_FOUND. */
  async move(principal: ApiKeyPrincipal, request: MoveDocumentsRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    return this.transactions.run(async (manager) => {
      const target = request.folderId === ROOT ? null : request.folderId;
      if (target !== null) await this.folders.requireFolder(manager, apiKeyId, organizationId, target, false);
      const existing = await this.existingIds(manager, apiKeyId, organizationId, request.documentIds);
      if (existing.size)
        await manager.update(DocumentEntity, { apiKeyId, organizationId, id: In([...existing]) }, { folderId: target, lastUpdated: Date.now() });
      return this.itemResults(request.documentIds, existing, DirectoryMessages.documentMoved);
    });
  }

  /**
   * Sets fields on existing documents (access type, disabled). Each document set answers the
   * fields with their new values beside `success`, `id` and `message`, as upstream's items do
   * (`{ success, accessType, message }`, `{ success, disabled, message }`); a missing one fails.
   */
  async set<F extends Partial<Pick<DocumentEntity, 'accessType' | 'disabled'>>>(
    principal: ApiKeyPrincipal,
    organizationId: string,
    ids: string[],
    fields: F,
    message: string,
  ): Promise<Record<string, ItemResult | (ItemResult & F)>> {
    const { apiKeyId } = principal;
    return this.transactions.run(async (manager) => {
      const existing = await this.existingIds(manager, apiKeyId, organizationId, ids);
      if (existing.size) await manager.update(DocumentEntity, { apiKeyId, organizationId, id: In([...existing]) }, { ...fields, lastUpdated: Date.now() });
      return Object.fromEntries(ids.map((id) => [id, existing.has(id) ? okWith(id, fields, message) : failed(id, DirectoryMessages.documentMissing)]));
    });
  }

  private itemResults(ids: string[], existing: Set<string>, message: string): ItemResults {
    return Object.fromEntries(ids.map((id) => [id, existing.has(id) ? ok(id, message) : failed(id, DirectoryMessages.documentMissing)]));
  }

  private async existingIds(manager: EntityManager, apiKeyId: string, organizationId: string, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await manager.find(DocumentEntity, { where: { apiKeyId, organizationId, id: In(ids) }, select: { id: true } });
    return new Set(rows.map((row) => row.id));
  }
}
