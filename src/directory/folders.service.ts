import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { effectiveFolderAccess, type FolderAccessNode } from './effective-access.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import type { AccessType } from '../common/access-types.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, okWith, type ItemResult, type ItemResults } from '../common/batch.js';
import { DirectoryDeletes } from './directory-deletes.js';
import { DirectoryErrors, DirectoryMessages } from './directory.errors.js';
import type { AddFoldersRequest, GetFoldersRequest, UpdateFolderAccessRequest, UpdateFoldersRequest } from './dto/folder.dto.js';
import type { FolderEntity } from './entities/folder.entity.js';
import { ancestorsOf, childPath, depthOf, idsOf, ROOT } from './folder-paths.js';
import { FolderStore } from './folder-store.js';
import type { FolderView } from './dto/folder.response.js';
import { OrganizationStore } from './organization-store.js';

/** A folder's outcome in access update (beside `success`, `id`, `message`). */
export interface FolderAccessItem extends ItemResult {
  /** The folder's own type now; null when it inherits. */
  accessType: AccessType | null;
  /** Present when the request sent `inheritFromParent`. */
  inheritFromParent?: boolean;
}

const toNode = (folder: FolderEntity): FolderAccessNode => ({ id: folder.id, pathIds: idsOf(folder.path), accessType: folder.accessType });

/** The folders operations' rules (batches, moves without cycles, effective access); `FolderStore` holds the tree. */
@Injectable()
export class FoldersService {
  constructor(
    private readonly transactions: Transactions,
    private readonly organizations: OrganizationStore,
    private readonly apiKeys: ApiKeyStore,
    private readonly deletes: DirectoryDeletes,
    private readonly store: FolderStore,
  ) {}

  /**
   * Adds folders in request order, so a folder may name a parent added earlier in the same
   * batch. Two reads and one insert whatever the batch size.
   */
  async add(principal: ApiKeyPrincipal, request: AddFoldersRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    return this.transactions.run(async (manager) => {
      await this.organizations.require(manager, apiKeyId, request.organizationId, request.createOrganization === true);
      const mentioned = request.folders.flatMap((f) => [f.folderId, f.parentFolderId ?? ROOT]).filter((id) => id !== ROOT);
      const known = new Map((await this.store.find(manager, apiKeyId, request.organizationId, mentioned)).map((f) => [f.id, f]));
      const now = Date.now();
      const results: ItemResults = {};
      const fresh: FolderEntity[] = [];
      for (const input of request.folders) {
        const parentId = input.parentFolderId ?? ROOT;
        const parent = parentId === ROOT ? undefined : known.get(parentId);
        if (input.folderId === ROOT) results[input.folderId] = failed(input.folderId, DirectoryMessages.folderRootReserved);
        else if (known.has(input.folderId)) results[input.folderId] = failed(input.folderId, DirectoryMessages.folderExists);
        else if (parentId !== ROOT && !parent) results[input.folderId] = failed(input.folderId, DirectoryMessages.folderParentMissing);
        else {
          const path = childPath(parent?.path ?? '', input.folderId);
          const folder: FolderEntity = {
            apiKeyId,
            organizationId: request.organizationId,
            id: input.folderId,
            name: input.folderName ?? null,
            parentId: parent ? parent.id : null,
            path,
            depth: depthOf(path),
            accessType: (input.accessType as AccessType | undefined) ?? null,
            createdAt: now,
            lastUpdated: now,
          };
          known.set(folder.id, folder);
          fresh.push(folder);
          results[input.folderId] = ok(input.folderId, DirectoryMessages.folderAdded);
        }
      }
      await this.store.insert(manager, fresh);
      return results;
    });
  }

  /**
   * Folders of an organization. Neither folderId nor maxDepth: all, flat. With folderId: that
   * folder with `maxDepth` (default 1) levels of `subFolders`; with only maxDepth: the top-level
   * folders nested that deep. One range query for the tree plus one for the ancestors.
   */
  async get(principal: ApiKeyPrincipal, request: GetFoldersRequest): Promise<FolderView[]> {
    const { apiKeyId } = principal;
    const keyDefault = (await this.apiKeys.settings(apiKeyId)).defaultDocumentAccessType;
    if (request.folderId === undefined && request.maxDepth === undefined) {
      const all = await this.store.all(apiKeyId, request.organizationId);
      const byId = new Map(all.map((f) => [f.id, toNode(f)]));
      return all.map((folder) => this.toRecord(folder, byId, keyDefault));
    }

    let top: FolderEntity | undefined;
    if (request.folderId !== undefined) {
      top = (await this.store.find(undefined, apiKeyId, request.organizationId, [request.folderId]))[0];
      if (!top) throw DirectoryErrors.folderNotFound();
    }
    const levels = request.maxDepth ?? 1;
    // Levels count below the named folder, or below the top-level folders (depth 1).
    const deepest = (top?.depth ?? 1) + levels;
    const tree = await this.store.tree(apiKeyId, request.organizationId, top, deepest);
    const ancestors = top ? await this.store.find(undefined, apiKeyId, request.organizationId, idsOf(top.path).slice(0, -1)) : [];
    const byId = new Map([...ancestors, ...(top ? [top] : []), ...tree].map((f) => [f.id, toNode(f)]));
    const children = new Map<string | null, FolderEntity[]>();
    for (const folder of tree) {
      const siblings = children.get(folder.parentId);
      if (siblings) siblings.push(folder);
      else children.set(folder.parentId, [folder]);
    }
    const nest = (folder: FolderEntity): FolderView => {
      const record = this.toRecord(folder, byId, keyDefault);
      if (folder.depth < deepest) record.subFolders = (children.get(folder.id) ?? []).map(nest);
      return record;
    };
    return top ? [nest(top)] : (children.get(null) ?? []).map(nest);
  }

  /** Renames and moves; a move re-roots the whole subtree (two statements per moved folder). */
  async update(principal: ApiKeyPrincipal, request: UpdateFoldersRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    return this.transactions.run(async (manager) => {
      const results: ItemResults = {};
      // Moves read paths and then rewrite them: the organization's lock keeps two from crossing.
      if (!(await this.organizations.lock(manager, apiKeyId, organizationId))) {
        for (const input of request.folders) results[input.folderId] = failed(input.folderId, DirectoryMessages.organizationMissing);
        return results;
      }
      const now = Date.now();
      for (const input of request.folders) {
        // Re-read per item: an earlier move in this batch may have changed paths.
        const [folder] = await this.store.find(manager, apiKeyId, organizationId, [input.folderId]);
        if (!folder) {
          results[input.folderId] = failed(input.folderId, DirectoryMessages.folderMissing);
          continue;
        }
        const newParentId = input.parentFolderId;
        if (newParentId !== undefined && newParentId !== (folder.parentId ?? ROOT)) {
          const parent = newParentId === ROOT ? undefined : (await this.store.find(manager, apiKeyId, organizationId, [newParentId]))[0];
          if (newParentId !== ROOT && !parent) {
            results[input.folderId] = failed(input.folderId, DirectoryMessages.folderParentMissing);
            continue;
          }
          if (parent && parent.path.startsWith(folder.path)) {
            results[input.folderId] = failed(input.folderId, DirectoryMessages.folderCycle);
            continue;
          }
          await this.store.moveSubtree(manager, folder, parent, now);
        }
        if (input.folderName !== undefined) await this.store.rename(manager, folder, input.folderName, now);
        results[input.folderId] = ok(input.folderId, DirectoryMessages.folderUpdated);
      }
      return results;
    });
  }

  /** Deletes a folder, its subfolders and their documents, and announces it (access removes the grants on all of them). */
  async delete(principal: ApiKeyPrincipal, organizationId: string, folderId: string): Promise<null> {
    const { apiKeyId } = principal;
    await this.transactions.run(async (manager) => {
      // A subtree being deleted is not moved or added to meanwhile.
      await this.organizations.lock(manager, apiKeyId, organizationId);
      const [folder] = await this.store.find(manager, apiKeyId, organizationId, [folderId]);
      if (!folder) throw DirectoryErrors.folderNotFound();
      const deleted = await this.store.deleteSubtree(manager, folder);
      // What others keep about them (grants) goes in this transaction too.
      await this.deletes.announce(manager, apiKeyId, organizationId, deleted);
    });
    return null;
  }

  /**
   * Sets or clears the folders' own access type. Each folder changed answers what it now holds,
   * as upstream's items do: `accessType` (the type sent); with `inheritFromParent: true`,
   * `accessType: null` and `inheritFromParent: true`; with `inheritFromParent: false`, the type
   * each folder kept as its own and `inheritFromParent: false`.
   */
  async updateAccess(principal: ApiKeyPrincipal, request: UpdateFolderAccessRequest): Promise<Record<string, ItemResult | FolderAccessItem>> {
    if (request.accessType !== undefined && request.inheritFromParent !== undefined) throw DirectoryErrors.inheritWithAccessType();
    if (request.accessType === undefined && request.inheritFromParent === undefined) throw DirectoryErrors.accessFieldRequired();
    const { apiKeyId } = principal;
    return this.transactions.run(async (manager) => {
      const existing = await this.store.find(manager, apiKeyId, request.organizationId, request.folderIds);
      const ids = new Set(existing.map((f) => f.id));
      let accessType: AccessType | null = (request.accessType as AccessType | undefined) ?? null;
      const answered = new Map<string, AccessType | null>();
      if (request.inheritFromParent === false && accessType === null) {
        // Stop inheriting without naming a type: keep what each folder has now, as its own.
        const keyDefault = (await this.apiKeys.settings(apiKeyId)).defaultDocumentAccessType;
        const ancestors = await this.store.find(
          manager,
          apiKeyId,
          request.organizationId,
          existing.flatMap((f) => idsOf(f.path)),
        );
        const byId = new Map([...ancestors, ...existing].map((f) => [f.id, toNode(f)]));
        const now = Date.now();
        const frozen = existing.map((folder) => ({ ...folder, accessType: effectiveFolderAccess(toNode(folder), byId, keyDefault), lastUpdated: now }));
        await this.store.putAccess(manager, frozen);
        for (const folder of frozen) answered.set(folder.id, folder.accessType);
      } else {
        if (request.inheritFromParent === true) accessType = null;
        await this.store.setAccess(manager, apiKeyId, request.organizationId, [...ids], accessType, Date.now());
        for (const id of ids) answered.set(id, accessType);
      }
      const inherit = request.inheritFromParent === undefined ? {} : { inheritFromParent: request.inheritFromParent };
      return Object.fromEntries(
        request.folderIds.map((id) => [
          id,
          answered.has(id)
            ? okWith(id, { accessType: answered.get(id)!, ...inherit }, DirectoryMessages.folderAccessUpdated)
            : failed(id, DirectoryMessages.folderMissing),
        ]),
      );
    });
  }

  /** Effective access types of the given folders (documents' folders), ancestors read in one query. */
  async effectiveAccess(
    manager: EntityManager | undefined,
    apiKeyId: string,
    organizationId: string,
    folderIds: string[],
    keyDefault: AccessType,
  ): Promise<Map<string, AccessType>> {
    const { folders, ancestors } = await this.store.withAncestors(manager, apiKeyId, organizationId, folderIds);
    const byId = new Map([...ancestors, ...folders].map((f) => [f.id, toNode(f)]));
    return new Map(folders.map((f) => [f.id, effectiveFolderAccess(toNode(f), byId, keyDefault)]));
  }

  /**
   * The folder a write names (documents add, users add): created at top level when missing and
   * `create` is set (`createFolder`), else it must exist (NOT_FOUND `Folder not found.`). `root`
   * names no folder and is never created.
   */
  async requireFolder(manager: EntityManager, apiKeyId: string, organizationId: string, folderId: string, create: boolean): Promise<void> {
    if (create && folderId !== ROOT) await this.store.ensureTopLevel(manager, apiKeyId, organizationId, folderId);
    else if (!(await this.store.find(manager, apiKeyId, organizationId, [folderId])).length) throw DirectoryErrors.folderNotFound();
  }

  /** The folders a write names (permissions add): every one must exist (NOT_FOUND `Folder not found.`). One query. */
  async requireFolders(manager: EntityManager, apiKeyId: string, organizationId: string, folderIds: string[]): Promise<void> {
    const found = new Set((await this.store.find(manager, apiKeyId, organizationId, folderIds)).map((f) => f.id));
    if (folderIds.some((id) => !found.has(id))) throw DirectoryErrors.folderNotFound();
  }

  private toRecord(folder: FolderEntity, known: ReadonlyMap<string, FolderAccessNode>, keyDefault: AccessType): FolderView {
    return {
      folderId: folder.id,
      folderName: folder.name,
      organizationId: folder.organizationId,
      parentFolderId: folder.parentId ?? ROOT,
      apiKey: folder.apiKeyId,
      createdAt: folder.createdAt,
      lastUpdated: folder.lastUpdated,
      ancestors: ancestorsOf(folder.path),
      accessType: effectiveFolderAccess(toNode(folder), known, keyDefault),
      inheritAccessFromParent: folder.accessType === null,
    };
  }
}
