import { Injectable } from '@nestjs/common';
import type { JsonText } from '../common/envelope.js';
import { ApiError } from '../common/errors.js';
import { unixSeconds } from '../common/time.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { ApiKeyRepository } from '../workspace/api-key.repository.js';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { DirectoryErrors } from '../directory/directory.errors.js';
import type { AccessType } from '../common/access-types.js';
import { idsOf } from '../directory/folder-paths.js';
import { DocumentsService } from '../directory/documents.service.js';
import { FoldersService } from '../directory/folders.service.js';
import { OrganizationsService } from '../directory/organizations.service.js';
import { AccessErrors } from './access.errors.js';
import type { AddPermissionsRequest, GetPermissionsRequest, PermissionResource, RemovePermissionsRequest } from './dto/permissions.dto.js';
import { MAX_PERMISSION_RESOURCES } from './dto/permissions.dto.js';
import { AccessContextEntity } from './entities/access-context.entity.js';
import { GrantEntity, type AccessRole, type GrantResourceType } from './entities/grant.entity.js';
import { PermissionResolver, type GrantRow, type PermissionWorld } from './permission-world.js';
import { permissionsJson, permissionsMap, type KindAnswer, type MissingEntry, type PermissionsLayout, type ResolvedUser } from './permissions-answer.js';

type DocumentRow = { id: string; folder_id: string | null; access_type: AccessType | null; disabled: boolean | number; folder_path: string | null; folder_access_type: AccessType | null };
type FolderRow = { id: string; path: string; accessType: AccessType | null };

/** Grants and permission resolution (contract part 5). */
@Injectable()
export class AccessService {
  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
    private readonly organizations: OrganizationsService,
    private readonly folders: FoldersService,
    private readonly documents: DocumentsService,
    private readonly apiKeys: ApiKeyRepository,
  ) {}

  /** Resolves every user on every requested folder and document (contract part 5). */
  private async resolve(principal: ApiKeyPrincipal, request: GetPermissionsRequest): Promise<{ layout: PermissionsLayout; users: ResolvedUser[]; missing: boolean }> {
    const { organizationId } = request;
    const folderIds = [...new Set(request.folderIds ?? [])];
    const documentIds = [...new Set(request.documentIds ?? [])];
    if (folderIds.length + documentIds.length > MAX_PERMISSION_RESOURCES) throw AccessErrors.tooManyResources(MAX_PERMISSION_RESOURCES);
    const userIds = [...new Set(request.userIds)];
    const { world, foundFolders, contextByUser } = await this.loadWorld(principal.apiKeyId, organizationId, userIds, folderIds, documentIds);
    const resolver = new PermissionResolver(world);
    const missingFolder: MissingEntry = { error: 'Folder does not exist', errorCode: 'does_not_exist' };
    const missingDocument: MissingEntry = { error: 'Document does not exist', errorCode: 'does_not_exist' };

    // Users of one kind (see `PermissionResolver.kindOf`) share one answer object: 100 users
    // cost the few kinds among them, and `get` encodes each shared answer once.
    const answers = new Map<string, KindAnswer>();
    const users = userIds.map((userId): ResolvedUser => {
      const kind = resolver.kindOf(userId);
      let answer = answers.get(kind);
      if (!answer) {
        answer = { organization: resolver.organizationEntry(userId) };
        if (request.folderIds) answer.folders = resolver.entries(userId, 'folder', folderIds, (id) => foundFolders.has(id), missingFolder);
        if (request.documentIds) answer.documents = resolver.entries(userId, 'document', documentIds, (id) => world.documents.has(id), missingDocument);
        answers.set(kind, answer);
      }
      const accessFields = contextByUser.get(userId);
      return accessFields ? { userId, answer, context: { accessFields } } : { userId, answer };
    });
    const missing = folderIds.some((id) => !foundFolders.has(id)) || documentIds.some((id) => !world.documents.has(id));
    const layout = { organizationId, ...(request.folderIds ? { folderIds } : {}), ...(request.documentIds ? { documentIds } : {}) };
    return { layout, users, missing };
  }

  /**
   * What resolution reads, in at most seven queries whatever the numbers: organization,
   * documents with their folders, requested folders, the folders above them that set their own
   * access type, grants, contexts, key settings.
   */
  private async loadWorld(
    apiKeyId: string,
    organizationId: string,
    /** Whose grants to read; `undefined`: everyone's who holds one at these places (no access fields then). */
    userIds: string[] | undefined,
    folderIds: string[],
    documentIds: string[],
  ): Promise<{ world: PermissionWorld; foundFolders: Set<string>; contextByUser: Map<string, string[]> }> {
    const scope = { apiKeyId, organizationId };
    const [organization] = await this.sql.rows<{ id: string; disabled: boolean | number }>(
      'SELECT id, disabled FROM organization WHERE api_key_id = :apiKeyId AND id = :organizationId',
      scope,
    );
    if (!organization) throw AccessErrors.organizationMissing();
    // Documents come with their folders (one join), then the requested folders not yet known.
    const documentRows = documentIds.length
      ? await this.sql.rows<DocumentRow>(
          `SELECT d.id, d.folder_id, d.access_type, d.disabled, f.path AS folder_path, f.access_type AS folder_access_type FROM document d
            LEFT JOIN folder f ON f.api_key_id = d.api_key_id AND f.organization_id = d.organization_id AND f.id = d.folder_id
            WHERE d.api_key_id = :apiKeyId AND d.organization_id = :organizationId AND d.id IN (:...ids)`,
          { ...scope, ids: documentIds },
        )
      : [];
    const known = new Map<string, FolderRow>();
    for (const d of documentRows) if (d.folder_id && d.folder_path !== null) known.set(d.folder_id, { id: d.folder_id, path: d.folder_path, accessType: d.folder_access_type });
    const requestedFolders = await this.folderRows(apiKeyId, organizationId, folderIds.filter((id) => !known.has(id)));
    for (const f of requestedFolders) known.set(f.id, f);
    const foundFolders = new Set(folderIds.filter((id) => known.has(id)));
    // Every folder above them can hold grants, and their ids are in the paths. Of their rows only
    // those that set their own access type matter: one that inherits changes no effective type.
    const above = new Set<string>();
    for (const f of known.values()) for (const id of idsOf(f.path).slice(0, -1)) if (!known.has(id)) above.add(id);
    const typedAbove = await this.folderRows(apiKeyId, organizationId, [...above], { ownAccessTypeOnly: true });
    const [grants, contexts, settings] = await Promise.all([
      this.grantRows(apiKeyId, organizationId, userIds, documentIds, [...known.keys(), ...above]),
      userIds
        ? this.sql.rows<{ user_id: string; access_fields: string }>('SELECT user_id, access_fields FROM access_context WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND user_id IN (:...userIds)', {
            ...scope,
            userIds,
          })
        : [],
      this.apiKeys.settings(apiKeyId),
    ]);
    const world: PermissionWorld = {
      organization: { id: organization.id, disabled: Boolean(organization.disabled) },
      keyDefault: settings.defaultDocumentAccessType,
      folders: new Map([...typedAbove, ...known.values()].map((f) => [f.id, f])),
      documents: new Map(documentRows.map((d) => [d.id, { id: d.id, folderId: d.folder_id, accessType: d.access_type, disabled: Boolean(d.disabled) }])),
      grants,
      now: unixSeconds(),
    };
    const contextByUser = new Map(contexts.map((c) => [c.user_id, JSON.parse(c.access_fields) as string[]]));
    return { world, foundFolders, contextByUser };
  }

  /**
   * Every user's permissions as JSON, each shared answer encoded once (see `JsonText`). A missing
   * folder or document answers NOT_FOUND with the whole map in its details.
   */
  async get(principal: ApiKeyPrincipal, request: GetPermissionsRequest): Promise<JsonText> {
    const { layout, users, missing } = await this.resolve(principal, request);
    if (missing) throw AccessErrors.resourcesMissing(permissionsMap(layout, users));
    return permissionsJson(layout, users);
  }

  /**
   * The known users who may see a document (contract 6.4's recipients): every user holding a
   * live grant on its organization, on it, or on a folder above it, resolved as permissions get
   * resolves them (a disabled document or organization shows to no one). The same fixed number
   * of queries as permissions get, whatever the number of users; empty when the organization or
   * the document does not exist.
   */
  async documentAudience(apiKeyId: string, organizationId: string, documentId: string): Promise<{ userId: string; accessRole: AccessRole }[]> {
    let world: PermissionWorld;
    try {
      ({ world } = await this.loadWorld(apiKeyId, organizationId, undefined, [], [documentId]));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'NOT_FOUND') return [];
      throw error;
    }
    if (!world.documents.has(documentId)) return [];
    const resolver = new PermissionResolver(world);
    const userIds = [...new Set(world.grants.map((grant) => grant.userId))].sort();
    return userIds.flatMap((userId) => {
      const entry = resolver.permission(userId, { type: 'document', id: documentId });
      return 'accessRole' in entry ? [{ userId, accessRole: entry.accessRole }] : [];
    });
  }

  /**
   * Grants a user access (the same grants users add makes). An `expiresAt` makes the grant
   * temporary, a row of its own beside any regular one; re-adding replaces role and expiry.
   * Missing organizations and documents are created (documents at top level); folders must exist.
   */
  async add(principal: ApiKeyPrincipal, request: AddPermissionsRequest): Promise<null> {
    const { apiKeyId } = principal;
    if (request.context && request.organizationId === undefined) throw AccessErrors.contextNeedsOrganization();
    const now = Date.now();
    const resources = request.permissions.resources.map((resource, i) => this.placeOf(resource, i));
    for (const resource of request.permissions.resources) if (resource.expiresAt !== undefined && resource.expiresAt <= unixSeconds()) throw AccessErrors.expiresInPast();
    await this.transactions.run(async (manager) => {
      await this.organizations.ensure(manager, apiKeyId, [...resources.map((r) => r.organizationId), ...(request.organizationId ? [request.organizationId] : [])]);
      const folderIdsByOrg = new Map<string, string[]>();
      for (const r of resources) if (r.type === 'folder') folderIdsByOrg.set(r.organizationId, [...(folderIdsByOrg.get(r.organizationId) ?? []), r.id]);
      for (const [organizationId, ids] of folderIdsByOrg) {
        const found = new Set((await this.folders.findFolders(manager, apiKeyId, organizationId, ids)).map((f) => f.id));
        if (ids.some((id) => !found.has(id))) throw DirectoryErrors.folderNotFound();
      }
      await this.documents.ensureDocuments(manager, apiKeyId, resources.filter((r) => r.type === 'document'));
      await manager
        .createQueryBuilder()
        .insert()
        .into(GrantEntity)
        .values(
          request.permissions.resources.map((resource, i) => ({
            apiKeyId,
            organizationId: resources[i]!.organizationId,
            resourceType: resource.type,
            resourceId: resource.id,
            userId: request.user.userId,
            temporary: resource.expiresAt !== undefined,
            accessRole: resource.accessRole ?? 'editor',
            expiresAt: resource.expiresAt ?? null,
            createdAt: now,
            lastUpdated: now,
          })),
        )
        .orUpdate(['access_role', 'expires_at', 'last_updated'], ['api_key_id', 'organization_id', 'resource_type', 'resource_id', 'user_id', 'temporary'])
        .execute();
      if (request.context && request.organizationId) {
        await manager
          .createQueryBuilder()
          .insert()
          .into(AccessContextEntity)
          .values({ apiKeyId, organizationId: request.organizationId, userId: request.user.userId, accessFields: request.context.accessFields as never, lastUpdated: now })
          .orUpdate(['access_fields', 'last_updated'], ['api_key_id', 'organization_id', 'user_id'])
          .execute();
      }
    });
    return null;
  }

  /** Removes the user's grants (regular and temporary) on the resources. */
  async remove(principal: ApiKeyPrincipal, request: RemovePermissionsRequest): Promise<null> {
    const { apiKeyId } = principal;
    const resources = request.permissions.resources.map((resource, i) => this.placeOf(resource, i));
    // One statement: TypeORM turns a list of conditions into OR-ed groups.
    await this.transactions.run((manager) =>
      manager.delete(
        GrantEntity,
        resources.map((resource) => ({ apiKeyId, organizationId: resource.organizationId, resourceType: resource.type, resourceId: resource.id, userId: request.userId })),
      ),
    );
    return null;
  }

  /** Where a resource sits: folders and documents name their organization; an organization is its own. */
  private placeOf(resource: PermissionResource, index: number): { type: PermissionResource['type']; id: string; organizationId: string } {
    if (resource.type === 'organization') return { type: 'organization', id: resource.id, organizationId: resource.organizationId ?? resource.id };
    if (resource.organizationId === undefined) throw AccessErrors.organizationIdRequired(`data.permissions.resources[${index}].organizationId`);
    return { type: resource.type, id: resource.id, organizationId: resource.organizationId };
  }

  /**
   * Folders by id as resolution needs them (plain SQL: this read is on the hot path); with
   * `ownAccessTypeOnly`, only those that set their own access type.
   */
  private async folderRows(apiKeyId: string, organizationId: string, ids: string[], { ownAccessTypeOnly = false } = {}): Promise<FolderRow[]> {
    if (!ids.length) return [];
    const rows = await this.sql.rows<{ id: string; path: string; access_type: AccessType | null }>(
      `SELECT id, path, access_type FROM folder WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id IN (:...ids)${ownAccessTypeOnly ? ' AND access_type IS NOT NULL' : ''}`,
      { apiKeyId, organizationId, ids },
    );
    return rows.map((f) => ({ id: f.id, path: f.path, accessType: f.access_type }));
  }

  /** The users' (or everyone's) grants on the organization and on the given documents and folders, in one query. */
  private async grantRows(apiKeyId: string, organizationId: string, userIds: string[] | undefined, documentIds: string[], folderIds: string[]): Promise<GrantRow[]> {
    const places = ["(resource_type = 'organization' AND resource_id = :organizationId)"];
    if (documentIds.length) places.push("(resource_type = 'document' AND resource_id IN (:...documentIds))");
    if (folderIds.length) places.push("(resource_type = 'folder' AND resource_id IN (:...folderIds))");
    const rows = await this.sql.rows<{ user_id: string; resource_type: GrantResourceType; resource_id: string; temporary: boolean | number; access_role: AccessRole; expires_at: number | string | null }>(
      `SELECT user_id, resource_type, resource_id, temporary, access_role, expires_at FROM access_grant
        WHERE api_key_id = :apiKeyId AND organization_id = :organizationId${userIds ? ' AND user_id IN (:...userIds)' : ''} AND (${places.join(' OR ')})`,
      { apiKeyId, organizationId, documentIds, folderIds, ...(userIds ? { userIds } : {}) },
    );
    return rows.map((g) => ({
      userId: g.user_id,
      resourceType: g.resource_type,
      resourceId: g.resource_id,
      temporary: Boolean(g.temporary),
      accessRole: g.access_role,
      expiresAt: g.expires_at === null ? null : Number(g.expires_at),
    }));
  }
}
