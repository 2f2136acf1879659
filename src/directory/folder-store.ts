import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type EntityManager, type Repository } from 'typeorm';
import type { AccessType } from '../common/access-types.js';
import { Sql } from '../database/sql.js';
import { FolderEntity } from './entities/folder.entity.js';
import { childPath, depthOf, descendantRange, idsOf } from './folder-paths.js';

/** A folder's place in its tree and its own access type (null when it inherits). */
export interface FolderNode {
  id: string;
  /** Materialised path of encoded ids (see folder-paths.ts). */
  path: string;
  accessType: AccessType | null;
}

/**
 * Owner of `folder`: an organization's folder tree as materialized paths (`folder-paths.ts`).
 * Entity reads and writes (timestamps converted, the transaction's own reads); the subtree move
 * is one update rewriting every path under the folder; the subtree delete is plain SQL, for
 * `RETURNING` alike on both engines, and deletes the subtree's documents too (see
 * ARCHITECTURE.md: the document owner depends on this one, so it cannot be called from here).
 */
@Injectable()
export class FolderStore {
  constructor(
    private readonly sql: Sql,
    @InjectRepository(FolderEntity) private readonly folders: Repository<FolderEntity>,
  ) {}

  /** Folders of an organization by id (any number, one query), in `manager`'s unit of work or outside any. */
  async find(manager: EntityManager | undefined, apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<FolderEntity[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [];
    return (manager ?? this.folders.manager).find(FolderEntity, { where: { apiKeyId, organizationId, id: In(unique) } });
  }

  /** The folders of `ids` with the folders above them (for effective access), in one query each. */
  async withAncestors(
    manager: EntityManager | undefined,
    apiKeyId: string,
    organizationId: string,
    ids: readonly string[],
  ): Promise<{ folders: FolderEntity[]; ancestors: FolderEntity[] }> {
    const folders = await this.find(manager, apiKeyId, organizationId, ids);
    const ancestors = await this.find(
      manager,
      apiKeyId,
      organizationId,
      folders.flatMap((f) => idsOf(f.path).slice(0, -1)),
    );
    return { folders, ancestors };
  }

  /**
   * Folders of an organization by id as access resolution reads them (plain SQL, on the path of
   * permissions get: one query whatever the number); with `ownAccessTypeOnly`, only those that
   * set their own access type (one that inherits changes no effective type).
   */
  async nodes(apiKeyId: string, organizationId: string, ids: readonly string[], { ownAccessTypeOnly = false } = {}): Promise<FolderNode[]> {
    if (!ids.length) return [];
    const rows = await this.sql.rows<{ id: string; path: string; access_type: AccessType | null }>(
      `SELECT id, path, access_type FROM folder WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id IN (:...ids)${ownAccessTypeOnly ? ' AND access_type IS NOT NULL' : ''}`,
      { apiKeyId, organizationId, ids },
    );
    return rows.map((f) => ({ id: f.id, path: f.path, accessType: f.access_type }));
  }

  /** Every folder of the organization, by path. */
  async all(apiKeyId: string, organizationId: string): Promise<FolderEntity[]> {
    return this.folders
      .createQueryBuilder('f')
      .where('f.api_key_id = :apiKeyId AND f.organization_id = :organizationId', { apiKeyId, organizationId })
      .orderBy('f.path', 'ASC')
      .getMany();
  }

  /**
   * The organization's folders down to depth `deepest`, below `under` when given (its subtree,
   * itself left out), oldest first. One range query.
   */
  async tree(apiKeyId: string, organizationId: string, under: FolderEntity | undefined, deepest: number): Promise<FolderEntity[]> {
    const query = this.folders.createQueryBuilder('f').where('f.api_key_id = :apiKeyId AND f.organization_id = :organizationId', { apiKeyId, organizationId });
    if (under) query.andWhere('f.path > :after AND f.path < :before', descendantRange(under.path));
    return query.andWhere('f.depth <= :deepest', { deepest }).orderBy('f.created_at', 'ASC').addOrderBy('f.id', 'ASC').getMany();
  }

  async insert(manager: EntityManager, folders: FolderEntity[]): Promise<void> {
    if (folders.length) await manager.insert(FolderEntity, folders);
  }

  /** Creates a top-level folder when missing (`createFolder`). */
  async ensureTopLevel(manager: EntityManager, apiKeyId: string, organizationId: string, folderId: string): Promise<void> {
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

  async rename(manager: EntityManager, folder: FolderEntity, name: string, at: number): Promise<void> {
    await manager.update(FolderEntity, { apiKeyId: folder.apiKeyId, organizationId: folder.organizationId, id: folder.id }, { name, lastUpdated: at });
  }

  /** Gives the folders of `ids` one access type of their own (null: they inherit). */
  async setAccess(
    manager: EntityManager,
    apiKeyId: string,
    organizationId: string,
    ids: readonly string[],
    accessType: AccessType | null,
    at: number,
  ): Promise<void> {
    if (ids.length) await manager.update(FolderEntity, { apiKeyId, organizationId, id: In([...ids]) }, { accessType, lastUpdated: at });
  }

  /** Writes each folder's own access type as given (one statement for the batch). */
  async putAccess(manager: EntityManager, folders: FolderEntity[]): Promise<void> {
    if (!folders.length) return;
    await manager
      .createQueryBuilder()
      .insert()
      .into(FolderEntity)
      .values(folders)
      .orUpdate(['access_type', 'last_updated'], ['api_key_id', 'organization_id', 'id'])
      .execute();
  }

  /** Moves a folder under `parent` (top level without): every path of its subtree re-rooted, then its parent. */
  async moveSubtree(manager: EntityManager, folder: FolderEntity, parent: FolderEntity | undefined, now: number): Promise<void> {
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

  /** Deletes a folder with its subfolders and their documents; answers the ids of both. */
  async deleteSubtree(manager: EntityManager, folder: FolderEntity): Promise<{ folderIds: string[]; documentIds: string[] }> {
    const range = descendantRange(folder.path);
    const parameters = { apiKeyId: folder.apiKeyId, organizationId: folder.organizationId, root: folder.path, before: range.before };
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
    return { folderIds: folders.map((f) => f.id), documentIds: documents.map((d) => d.id) };
  }
}
