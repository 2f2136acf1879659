import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { effectiveDocumentAccess } from './effective-access.js';
import { PageTokens, PAGE_BYTES, PAGE_SIZE } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import type { AccessType } from '../common/access-types.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, okWith, splitMetadata, type ItemResult, type ItemResults } from '../common/batch.js';
import { DirectoryDeletes } from './directory-deletes.js';
import { DocumentMoves, type DocumentMove } from './document-moves.js';
import { DirectoryErrors, DirectoryMessages } from './directory.errors.js';
import { DOCUMENT_FIELDS, type AddDocumentsRequest, type DocumentInput, type GetDocumentsRequest, type MoveDocumentsRequest } from './dto/document.dto.js';
import { DocumentStore } from './document-store.js';
import type { DocumentEntity } from './entities/document.entity.js';
import { ROOT } from './folder-paths.js';
import { FoldersService } from './folders.service.js';
import { OrganizationStore } from './organization-store.js';

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

/** The documents operations' rules (create flags, metadata merged, effective access, pages, migrate); `DocumentStore` holds the rows. */
@Injectable()
export class DocumentsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly organizations: OrganizationStore,
    private readonly folders: FoldersService,
    private readonly apiKeys: ApiKeyStore,
    private readonly pageTokens: PageTokens,
    private readonly deletes: DirectoryDeletes,
    private readonly moves: DocumentMoves,
    private readonly store: DocumentStore,
  ) {}

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
    return this.store.holdExisting(manager, apiKeyId, places);
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
      const inserted = await this.store.insertNew(
        manager,
        apiKeyId,
        organizationId,
        folderId,
        request.documents.map((input) => ({
          id: input.documentId,
          name: input.documentName ?? null,
          accessType: (input.accessType as AccessType | undefined) ?? null,
          disabled: input.disabled ?? false,
          metadata: splitMetadata(input, DOCUMENT_FIELDS),
        })),
        now,
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
    const { documents, cut } = await this.store.page(
      apiKeyId,
      request.organizationId,
      { documentIds: request.documentIds, folderId: request.folderId === ROOT ? null : request.folderId },
      after,
      pageSize + 1,
      PAGE_BYTES,
    );
    const { items: page, next } = this.pageTokens.page(documents, pageSize, apiKeyId, 'documents/get', filters, (last) => [last.createdAt, last.id], cut);
    const keyDefault = (await this.apiKeys.settings(apiKeyId)).defaultDocumentAccessType;
    const folderAccess = await this.folders.effectiveAccess(
      undefined,
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
          : await this.store.existingIds(undefined, apiKeyId, request.organizationId, requested);
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
    if (await this.store.exists(apiKeyId, place.organizationId, place.documentId)) return;
    await this.organizations.require(manager, apiKeyId, place.organizationId, place.createOrganization === true);
    await this.requireDocument(manager, apiKeyId, place.organizationId, place.documentId, place.createDocument === true);
  }

  /**
   * The organization and the document a write names, each created when missing (contract part
   * 4: activities add and CRDT writes); a created document is top level.
   */
  async ensureDocument(manager: EntityManager, apiKeyId: string, organizationId: string, documentId: string): Promise<void> {
    await this.organizations.require(manager, apiKeyId, organizationId, true);
    await this.store.ensure(manager, apiKeyId, [{ organizationId, id: documentId }]);
  }

  /**
   * The document a write names (users add): created at top level when missing and `create` is
   * set, else it must exist (NOT_FOUND `Document does not exist`).
   */
  async requireDocument(manager: EntityManager, apiKeyId: string, organizationId: string, documentId: string, create: boolean): Promise<void> {
    if (create) await this.store.ensure(manager, apiKeyId, [{ organizationId, id: documentId }]);
    else if (!(await this.store.existingIds(manager, apiKeyId, organizationId, [documentId])).size) throw DirectoryErrors.documentMissing();
  }

  /**
   * Updates name, flags and metadata (merged) of existing documents: one read, then one upsert
   * of the changed rows (all of which exist, so it only updates).
   */
  async update(principal: ApiKeyPrincipal, organizationId: string, items: DocumentInput[]): Promise<ItemResults> {
    const { apiKeyId } = principal;
    return this.transactions.run(async (manager) => {
      const current = await this.store.lockMany(
        manager,
        apiKeyId,
        organizationId,
        items.map((i) => i.documentId),
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
      await this.store.putChanged(manager, changed);
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
      const existing = [...(await this.store.existingIds(manager, apiKeyId, organizationId, ids))];
      if (existing.length) {
        await this.store.delete(manager, apiKeyId, organizationId, existing);
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
    const copied = await this.store.copyAs(manager, apiKeyId, move.organizationId, move.from, move.to);
    if (copied === 'missing') throw DirectoryErrors.documentMissing();
    if (copied === 'exists') throw DirectoryErrors.documentExists();
    await this.moves.announce(manager, apiKeyId, move);
    await this.store.deleteOne(manager, apiKeyId, move.organizationId, move.from);
  }

  /** Moves documents into a folder, or out of any folder with `root`; an unknown target is NOT_FOUND. */
  async move(principal: ApiKeyPrincipal, request: MoveDocumentsRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    return this.transactions.run(async (manager) => {
      const target = request.folderId === ROOT ? null : request.folderId;
      if (target !== null) await this.folders.requireFolder(manager, apiKeyId, organizationId, target, false);
      const existing = await this.store.existingIds(manager, apiKeyId, organizationId, request.documentIds);
      await this.store.setFields(manager, apiKeyId, organizationId, [...existing], { folderId: target }, Date.now());
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
      const existing = await this.store.existingIds(manager, apiKeyId, organizationId, ids);
      await this.store.setFields(manager, apiKeyId, organizationId, [...existing], fields, Date.now());
      return Object.fromEntries(ids.map((id) => [id, existing.has(id) ? okWith(id, fields, message) : failed(id, DirectoryMessages.documentMissing)]));
    });
  }

  private itemResults(ids: string[], existing: Set<string>, message: string): ItemResults {
    return Object.fromEntries(ids.map((id) => [id, existing.has(id) ? ok(id, message) : failed(id, DirectoryMessages.documentMissing)]));
  }
}
