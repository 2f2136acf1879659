import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type EntityManager, type Repository } from 'typeorm';
import { effectiveFolderAccess, type FolderAccessNode } from './effective-access.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import type { AccessType } from '../common/access-types.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, okWith, type ItemResult, type ItemResults } from '../common/batch.js';
import { DirectoryDeletes } from './directory-deletes.js';
import { DirectoryErrors, DirectoryMessages } from './directory.errors.js';
import type { AddFoldersRequest, GetFoldersRequest, UpdateFolderAccessRequest, UpdateFoldersRequest } from './dto/folder.dto.js';
import { FolderEntity } from './entities/folder.entity.js';
import { ancestorsOf, childPath, depthOf, descendantRange, idsOf, ROOT } from './folder-paths.js';
import { OrganizationStore } from './organization-store.js';

/** A folder as returned (rest-interface part 2). */
export interface FolderRecord {
  folderId: string;
  folderName: string | null;
  organizationId: string;
  parentFolderId: string;
  apiKey: string;
  createdAt: number;
  lastUpdated: number;
  ancestors: string[];
  accessType: AccessType;
  inheritAccessFromParent: boolean;
  subFolders?: FolderRecord[];
}

/** A folder's outcome in access update (beside `success`, `id`, `message`). */
export interface FolderAccessItem extends ItemResult {
  /** The folder's own type now; null when it inherits. */
  accessType: AccessType | null;
  /** Present when the request sent `inheritFromParent`. */
  inheritFromParent?: boolean;
}

const toNode = (folder: FolderEntity): FolderAccessNode => ({ id: folder.id, pathIds: idsOf(folder.path), accessType: folder.accessType });

@Injectable()
export class FoldersService {
  constructor(
    private readonly transactions: Transactions,
    private readonly organizations: OrganizationStore,
    private readonly apiKeys: ApiKeyStore,
    private readonly sql: Sql,
    private readonly deletes: DirectoryDeletes,
    @InjectRepository(FolderEntity) private readonly folders: Repository<FolderEntity>,
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
      const known = new Map((await this.findFolders(manager, apiKeyId, request.organizationId, mentioned)).map((f) => [f.id, f]));
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
      if (fresh.length) await manager.insert(FolderEntity, fresh);
      return results;
    });
  }

  /**
   * Folders of an organization. Neither folderId nor maxDepth: all, flat. With folderId: that
   * folder with `maxDepth` (default 1) levels of `subFolders`; with only maxDepth: the top-level
   * folders nested that deep. One range query for the tree plus one for the ancestors.
   */
  async get(principal: ApiKeyPrincipal, request: GetFoldersRequest): Promise<FolderRecord[]> {
    const { apiKeyId } = principal;
    const keyDefault = (await this.apiKeys.settings(apiKeyId)).defaultDocumentAccessType;
    const base = this.folders
      .createQueryBuilder('f')
      .where('f.api_key_id = :apiKeyId AND f.organization_id = :organizationId', { apiKeyId, organizationId: request.organizationId });

    if (request.folderId === undefined && request.maxDepth === undefined) {
      const all = await base.orderBy('f.path', 'ASC').getMany();
      const byId = new Map(all.map((f) => [f.id, toNode(f)]));
      return all.map((folder) => this.toRecord(folder, byId, keyDefault));
    }

    let top: FolderEntity | undefined;
    if (request.folderId !== undefined) {
      top = (await this.findFolders(this.folders.manager, apiKeyId, request.organizationId, [request.folderId]))[0];
      if (!top) throw DirectoryErrors.folderNotFound();
    }
    const levels = request.maxDepth ?? 1;
    // Levels count below the named folder, or below the top-level folders (depth 1).
    const deepest = (top?.depth ?? 1) + levels;
    if (top) {
      const range = descendantRange(top.path);
      base.andWhere('f.path > :after AND f.path < :before', range);
    }
    const tree = await base.andWhere('f.depth <= :deepest', { deepest }).orderBy('f.created_at', 'ASC').addOrderBy('f.id', 'ASC').getMany();
    const ancestors = top ? await this.findFolders(this.folders.manager, apiKeyId, request.organizationId, idsOf(top.path).slice(0, -1)) : [];
    const byId = new Map([...ancestors, ...(top ? [top] : []), ...tree].map((f) => [f.id, toNode(f)]));
    const children = new Map<string | null, FolderEntity[]>();
    for (const folder of tree) {
      const siblings = children.get(folder.parentId);
      if (siblings) siblings.push(folder);
      else children.set(folder.parentId, [folder]);
    }
    const nest = (folder: FolderEntity): FolderRecord => {
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
        const [folder] = await this.findFolders(manager, apiKeyId, organizationId, [input.folderId]);
        if (!folder) {
          results[input.folderId] = failed(input.folderId, DirectoryMessages.folderMissing);
          continue;
        }
        const newParentId = input.parentFolderId;
        if (newParentId !== undefined && newParentId !== (folder.parentId ?? ROOT)) {
          const parent = newParentId === ROOT ? undefined : (await this.findFolders(manager, apiKeyId, organizationId, [newParentId]))[0];
          if (newParentId !== ROOT && !parent) {
            results[input.folderId] = failed(input.folderId, DirectoryMessages.folderParentMissing);
            continue;
          }
          if (parent && parent.path.startsWith(folder.path)) {
            results[input.folderId] = failed(input.folderId, DirectoryMessages.folderCycle);
            continue;
          }
          await this.moveSubtree(manager, folder, parent, now);
        }
        if (input.folderName !== undefined) {
          await manager.update(FolderEntity, { apiKeyId, organizationId, id: folder.id }, { name: input.folderName, lastUpdated: now });
        }
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
      const [folder] = await this.findFolders(manager, apiKeyId, organizationId, [folderId]);
      if (!folder) throw DirectoryErrors.folderNotFound();
      const range = descendantRange(folder.path);
      const parameters = { apiKeyId, organizationId, root: folder.path, before: range.before };
      // Plain SQL: `RETURNING` hands back the ids deleted, to announce, alike on both engines.
      const documents = await this.sql.run<{ id: string }>(
        manager,
        `DELETE FROM document WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND folder_id IN (
          SELECT id FROM folder WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND path >= :root AND path < :before) RETURNING id`,
        parameters,
      );
      const folders = await this.sql.run<{ id: string }>(
        manager,
        'DELETE FROM folder WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND path >= :root AND path < :before RETURNING id',
        parameters,
      );
      // What others keep about them (grants) goes in this transaction too.
      await this.deletes.announce(manager, apiKeyId, organizationId, { folderIds: folders.map((f) => f.id), documentIds: documents.map((d) => d.id) });
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
      const existing = await this.findFolders(manager, apiKeyId, request.organizationId, request.folderIds);
      const ids = new Set(existing.map((f) => f.id));
      let accessType: AccessType | null = (request.accessType as AccessType | undefined) ?? null;
      const answered = new Map<string, AccessType | null>();
      if (request.inheritFromParent === false && accessType === null) {
        // Stop inheriting without naming a type: keep what each folder has now, as its own.
        const keyDefault = (await this.apiKeys.settings(apiKeyId)).defaultDocumentAccessType;
        const ancestors = await this.findFolders(
          manager,
          apiKeyId,
          request.organizationId,
          existing.flatMap((f) => idsOf(f.path)),
        );
        const byId = new Map([...ancestors, ...existing].map((f) => [f.id, toNode(f)]));
        const now = Date.now();
        const frozen = existing.map((folder) => ({ ...folder, accessType: effectiveFolderAccess(toNode(folder), byId, keyDefault), lastUpdated: now }));
        if (frozen.length) {
          await manager
            .createQueryBuilder()
            .insert()
            .into(FolderEntity)
            .values(frozen)
            .orUpdate(['access_type', 'last_updated'], ['api_key_id', 'organization_id', 'id'])
            .execute();
        }
        for (const folder of frozen) answered.set(folder.id, folder.accessType);
      } else {
        if (request.inheritFromParent === true) accessType = null;
        if (ids.size)
          await manager.update(FolderEntity, { apiKeyId, organizationId: request.organizationId, id: In([...ids]) }, { accessType, lastUpdated: Date.now() });
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

  /** Folders of an organization by id (any number, one query). Entity: the rows' timestamps converted, and the transaction's own reads. */
  private async findFolders(manager: EntityManager, apiKeyId: string, organizationId: string, ids: string[]): Promise<FolderEntity[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [];
    return manager.find(FolderEntity, { where: { apiKeyId, organizationId, id: In(unique) } });
  }

  /** Effective access types of the given folders (documents' folders), ancestors read in one query. */
  async effectiveAccess(
    manager: EntityManager,
    apiKeyId: string,
    organizationId: string,
    folderIds: string[],
    keyDefault: AccessType,
  ): Promise<Map<string, AccessType>> {
    const folders = await this.findFolders(manager, apiKeyId, organizationId, folderIds);
    const ancestors = await this.findFolders(
      manager,
      apiKeyId,
      organizationId,
      folders.flatMap((f) => idsOf(f.path).slice(0, -1)),
    );
    const byId = new Map([...ancestors, ...folders].map((f) => [f.id, toNode(f)]));
    return new Map(folders.map((f) => [f.id, effectiveFolderAccess(toNode(f), byId, keyDefault)]));
  }

  /**
   * The folder a write names (documents add, users add): created at top level when missing and
   * `create` is set (`createFolder`), else it must exist (NOT_FOUND `Folder not found.`). `root`
   * names no folder and is never created.
   */
  async requireFolder(manager: EntityManager, apiKeyId: string, organizationId: string, folderId: string, create: boolean): Promise<void> {
    if (create && folderId !== ROOT) await this.ensureTopLevel(manager, apiKeyId, organizationId, folderId);
    else if (!(await this.findFolders(manager, apiKeyId, organizationId, [folderId])).length) throw DirectoryErrors.folderNotFound();
  }

  /** The folders a write names (permissions add): every one must exist (NOT_FOUND `Folder not found.`). One query. */
  async requireFolders(manager: EntityManager, apiKeyId: string, organizationId: string, folderIds: string[]): Promise<void> {
    const found = new Set((await this.findFolders(manager, apiKeyId, organizationId, folderIds)).map((f) => f.id));
    if (folderIds.some((id) => !found.has(id))) throw DirectoryErrors.folderNotFound();
  }

  /** Creates a top-level folder when missing (`createFolder`). */
  private async ensureTopLevel(manager: EntityManager, apiKeyId: string, organizationId: string, folderId: string): Promise<void> {
    const now = Date.now();
    const path = childPath('', folderId);
    await manager
      .createQueryBuilder()
      .insert()
      .into(FolderEntity)
      .values({
        apiKeyId,
        organizationId,
        id: folderId,
        name: null,
        parentId: null,
        path,
        depth: depthOf(path),
        accessType: null,
        createdAt: now,
        lastUpdated: now,
      })
      .orIgnore()
      .execute();
  }

  private async moveSubtree(manager: EntityManager, folder: FolderEntity, parent: FolderEntity | undefined, now: number): Promise<void> {
    const newPath = childPath(parent?.path ?? '', folder.id);
    const range = descendantRange(folder.path);
    await manager
      .createQueryBuilder()
      .update(FolderEntity)
      .set({
        path: () => `:newPath || substr(path, ${folder.path.length + 1})`,
        depth: () => `depth + ${depthOf(newPath) - folder.depth}`,
        lastUpdated: now,
      })
      .where('api_key_id = :apiKeyId AND organization_id = :organizationId AND path >= :root AND path < :before', {
        apiKeyId: folder.apiKeyId,
        organizationId: folder.organizationId,
        root: folder.path,
        before: range.before,
      })
      .setParameter('newPath', newPath)
      .execute();
    await manager.update(
      FolderEntity,
      { apiKeyId: folder.apiKeyId, organizationId: folder.organizationId, id: folder.id },
      { parentId: parent ? parent.id : null },
    );
  }

  private toRecord(folder: FolderEntity, known: ReadonlyMap<string, FolderAccessNode>, keyDefault: AccessType): FolderRecord {
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
