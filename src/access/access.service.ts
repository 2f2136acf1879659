import { Injectable } from '@nestjs/common';
import type { JsonText } from '../common/envelope.js';
import { ApiError } from '../common/errors.js';
import { unixSeconds } from '../common/time.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import { Transactions } from '../database/transactions.js';
import { idsOf } from '../directory/folder-paths.js';
import { DocumentStore } from '../directory/document-store.js';
import { FolderStore, type FolderNode } from '../directory/folder-store.js';
import { FoldersService } from '../directory/folders.service.js';
import { OrganizationStore } from '../directory/organization-store.js';
import { AccessErrors } from './access.errors.js';
import type {
  AddPermissionsRequest,
  ExplainPermissionRequest,
  GetPermissionsRequest,
  PermissionResource,
  RemovePermissionsRequest,
} from './dto/permissions.dto.js';
import { MAX_PERMISSION_RESOURCES } from './dto/permissions.dto.js';
import type { AccessRole } from './entities/grant.entity.js';
import { GrantStore } from './grant-store.js';
import { PermissionResolver, type GrantedBy, type PermissionWorld, type RequestedResources } from './permission-world.js';
import { permissionsJson, permissionsMap, userAnswers, type PermissionsLayout, type ResolvedUser } from './permissions-answer.js';
import type { PermissionEntry } from './resolve-permission.js';
import { groupBy } from '../common/collections.js';

/** Grants and permission resolution (contract part 5). */
@Injectable()
export class AccessService {
  constructor(
    private readonly transactions: Transactions,
    private readonly documentStore: DocumentStore,
    private readonly folderStore: FolderStore,
    private readonly organizations: OrganizationStore,
    private readonly folders: FoldersService,
    private readonly apiKeys: ApiKeyStore,
    private readonly grants: GrantStore,
  ) {}

  /**
   * Resolves every user on every requested folder and document (contract part 5). A missing
   * folder or document answers NOT_FOUND with the whole map in its details.
   */
  private async resolve(
    principal: ApiKeyPrincipal,
    request: GetPermissionsRequest,
  ): Promise<{ layout: PermissionsLayout; users: ResolvedUser[]; resolver: PermissionResolver }> {
    const { organizationId } = request;
    const folderIds = [...new Set(request.folderIds ?? [])];
    const documentIds = [...new Set(request.documentIds ?? [])];
    if (folderIds.length + documentIds.length > MAX_PERMISSION_RESOURCES) throw AccessErrors.tooManyResources(MAX_PERMISSION_RESOURCES);
    const userIds = [...new Set(request.userIds)];
    const { world, foundFolders, contextByUser } = await this.loadWorld(principal.apiKeyId, organizationId, userIds, folderIds, documentIds);
    const resolver = new PermissionResolver(world);
    const requested: RequestedResources = {
      folder: folderIds,
      document: documentIds,
      exists: { folder: (id) => foundFolders.has(id), document: (id) => world.documents.has(id) },
    };
    const answers = userAnswers(resolver, userIds, requested, { folders: request.folderIds !== undefined, documents: request.documentIds !== undefined });
    const users = userIds.map((userId): ResolvedUser => {
      const answer = answers.get(userId)!;
      const accessFields = contextByUser.get(userId);
      return accessFields ? { userId, answer, context: { accessFields } } : { userId, answer };
    });
    const missing = folderIds.some((id) => !foundFolders.has(id)) || documentIds.some((id) => !world.documents.has(id));
    const layout = { organizationId, ...(request.folderIds ? { folderIds } : {}), ...(request.documentIds ? { documentIds } : {}) };
    if (missing) throw AccessErrors.resourcesMissing(permissionsMap(layout, users));
    return { layout, users, resolver };
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
    const organization = await this.organizations.state(apiKeyId, organizationId);
    if (!organization) throw AccessErrors.organizationMissing();
    // Documents come with their folders (one join), then the requested folders not yet known.
    const documents = await this.documentStore.withFolders(apiKeyId, organizationId, documentIds);
    const known = new Map<string, FolderNode>();
    for (const d of documents) if (d.folder) known.set(d.folder.id, d.folder);
    const requestedFolders = await this.folderStore.nodes(
      apiKeyId,
      organizationId,
      folderIds.filter((id) => !known.has(id)),
    );
    for (const f of requestedFolders) known.set(f.id, f);
    const foundFolders = new Set(folderIds.filter((id) => known.has(id)));
    // Every folder above them can hold grants, and their ids are in the paths. Of their rows only
    // those that set their own access type matter: one that inherits changes no effective type.
    const above = new Set<string>();
    for (const f of known.values()) for (const id of idsOf(f.path).slice(0, -1)) if (!known.has(id)) above.add(id);
    const typedAbove = await this.folderStore.nodes(apiKeyId, organizationId, [...above], { ownAccessTypeOnly: true });
    const [grants, contextByUser, settings] = await Promise.all([
      this.grants.grantsAt(apiKeyId, organizationId, userIds, { documentIds, folderIds: [...known.keys(), ...above] }),
      userIds ? this.grants.accessFields(apiKeyId, organizationId, userIds) : new Map<string, string[]>(),
      this.apiKeys.settings(apiKeyId),
    ]);
    const world: PermissionWorld = {
      organization,
      keyDefault: settings.defaultDocumentAccessType,
      folders: new Map([...typedAbove, ...known.values()].map((f) => [f.id, f])),
      documents: new Map(documents.map((d) => [d.id, { id: d.id, folderId: d.folderId, accessType: d.accessType, disabled: d.disabled }])),
      grants,
      now: unixSeconds(),
    };
    return { world, foundFolders, contextByUser };
  }

  /** Every user's permissions as JSON, each shared answer encoded once (see `JsonText`). */
  async get(principal: ApiKeyPrincipal, request: GetPermissionsRequest): Promise<JsonText> {
    const { layout, users } = await this.resolve(principal, request);
    return permissionsJson(layout, users);
  }

  /**
   * One user's entry on one document or folder, as permissions get answers it, and the rule that
   * decided it. It runs permissions get's resolution for that one user and resource, so its
   * queries, entry and errors are get's: NOT_FOUND for a missing organization, and for a missing
   * document or folder with get's per-user map in the details. A user is never missing (get
   * resolves any id: one without grants gets what the access type gives everyone).
   */
  async explain(principal: ApiKeyPrincipal, request: ExplainPermissionRequest): Promise<PermissionEntry & { grantedBy: GrantedBy }> {
    const { organizationId, userId, documentId, folderId } = request;
    if ((documentId === undefined) === (folderId === undefined)) throw AccessErrors.explainOneResource();
    const resource = documentId !== undefined ? { type: 'document' as const, id: documentId } : { type: 'folder' as const, id: folderId! };
    const { resolver } = await this.resolve(principal, {
      organizationId,
      userIds: [userId],
      ...(resource.type === 'document' ? { documentIds: [resource.id] } : { folderIds: [resource.id] }),
    });
    const { entry, grantedBy } = resolver.explain(userId, resource);
    return { ...entry, grantedBy };
  }

  /**
   * The known users who may see a document (contract 6.4's recipients): every user holding a
   * live grant on its organization, on it, or on a folder above it, resolved as permissions get
   * resolves them (a disabled document or organization shows to no one). The same fixed number
   * of queries as permissions get, whatever the number of users; empty when the organization or
   * the document does not exist.
   */
  async documentAudience(apiKeyId: string, organizationId: string, documentId: string): Promise<{ userId: string; accessRole: AccessRole }[]> {
    return (await this.documentAudiences(apiKeyId, organizationId, [documentId])).get(documentId) ?? [];
  }

  /**
   * `documentAudience` of several documents of one organization, with the queries of one (the
   * delivery worker's batch of inbox audiences reads them together). Each document's audience is
   * the users holding a grant at its own places (the organization, its folders, itself), as if
   * read alone; a document that does not exist has no entry.
   */
  async documentAudiences(apiKeyId: string, organizationId: string, documentIds: string[]): Promise<Map<string, { userId: string; accessRole: AccessRole }[]>> {
    const audiences = new Map<string, { userId: string; accessRole: AccessRole }[]>();
    let world: PermissionWorld;
    try {
      ({ world } = await this.loadWorld(apiKeyId, organizationId, undefined, [], documentIds));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'NOT_FOUND') return audiences;
      throw error;
    }
    const resolver = new PermissionResolver(world);
    // Who holds a grant where: the organization's, each folder's, each document's.
    const holders = groupBy(
      world.grants,
      (grant) => (grant.resourceType === 'organization' ? 'organization' : `${grant.resourceType}:${grant.resourceId}`),
      (grant) => grant.userId,
    );
    for (const documentId of documentIds) {
      const document = world.documents.get(documentId);
      if (!document || audiences.has(documentId)) continue;
      const folder = document.folderId === null ? undefined : world.folders.get(document.folderId);
      const places = ['organization', `document:${documentId}`, ...(folder ? idsOf(folder.path) : []).map((id) => `folder:${id}`)];
      const userIds = [...new Set(places.flatMap((place) => holders.get(place) ?? []))].sort();
      audiences.set(
        documentId,
        userIds.flatMap((userId) => {
          const entry = resolver.permission(userId, { type: 'document', id: documentId });
          return 'accessRole' in entry ? [{ userId, accessRole: entry.accessRole }] : [];
        }),
      );
    }
    return audiences;
  }

  /**
   * The role one user holds on one document, as permissions get resolves it (stored grants,
   * folders, the organization, the document's access type); undefined when they may not see it,
   * or the organization or document does not exist.
   */
  async documentRole(apiKeyId: string, organizationId: string, documentId: string, userId: string): Promise<AccessRole | undefined> {
    return (await this.documentRoles(apiKeyId, organizationId, documentId, [userId])).get(userId);
  }

  /**
   * `documentRole` for several users of one document at once, with the queries of one: the
   * users who may not see it are absent from the answer.
   */
  async documentRoles(apiKeyId: string, organizationId: string, documentId: string, userIds: string[]): Promise<Map<string, AccessRole>> {
    const roles = new Map<string, AccessRole>();
    const world = await this.documentWorld(apiKeyId, organizationId, documentId, userIds);
    if (!world) return roles;
    const resolver = new PermissionResolver(world);
    for (const userId of userIds) {
      const entry = resolver.permission(userId, { type: 'document', id: documentId });
      if ('accessRole' in entry) roles.set(userId, entry.accessRole);
    }
    return roles;
  }

  /** What resolution reads for one document (the grants of `userIds`, or of everyone); undefined when the organization or the document does not exist. */
  private async documentWorld(
    apiKeyId: string,
    organizationId: string,
    documentId: string,
    userIds: string[] | undefined,
  ): Promise<PermissionWorld | undefined> {
    try {
      const { world } = await this.loadWorld(apiKeyId, organizationId, userIds, [], [documentId]);
      return world.documents.has(documentId) ? world : undefined;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
  }

  /**
   * Grants a user access (the same grants users add makes). An `expiresAt` makes the grant
   * temporary, a row of its own beside any regular one; re-adding replaces role and expiry.
   * Missing organizations and documents are created (documents at top level); folders must exist.
   */
  async add(principal: ApiKeyPrincipal, request: AddPermissionsRequest): Promise<null> {
    const { apiKeyId } = principal;
    if (request.context && request.organizationId === undefined) throw AccessErrors.contextNeedsOrganization();
    const resources = request.permissions.resources.map((resource, i) => this.placeOf(resource, i));
    for (const resource of request.permissions.resources)
      if (resource.expiresAt !== undefined && resource.expiresAt <= unixSeconds()) throw AccessErrors.expiresInPast();
    await this.transactions.run(async (manager) => {
      await this.organizations.ensure(manager, apiKeyId, [
        ...resources.map((r) => r.organizationId),
        ...(request.organizationId ? [request.organizationId] : []),
      ]);
      const folders = resources.filter((r) => r.type === 'folder');
      for (const [organizationId, ids] of groupBy(
        folders,
        (r) => r.organizationId,
        (r) => r.id,
      ))
        await this.folders.requireFolders(manager, apiKeyId, organizationId, ids);
      await this.documentStore.ensure(
        manager,
        apiKeyId,
        resources.filter((r) => r.type === 'document'),
      );
      await this.grants.putGrants(
        manager,
        apiKeyId,
        request.permissions.resources.map((resource, i) => ({
          organizationId: resources[i]!.organizationId,
          resourceType: resource.type,
          resourceId: resource.id,
          userId: request.user.userId,
          accessRole: resource.accessRole ?? 'editor',
          expiresAt: resource.expiresAt ?? null,
        })),
      );
      if (request.context && request.organizationId)
        await this.grants.putAccessFields(manager, apiKeyId, request.organizationId, request.user.userId, request.context.accessFields);
    });
    return null;
  }

  /** Removes the user's grants (regular and temporary) on the resources. */
  async remove(principal: ApiKeyPrincipal, request: RemovePermissionsRequest): Promise<null> {
    const { apiKeyId } = principal;
    const resources = request.permissions.resources.map((resource, i) => this.placeOf(resource, i));
    await this.transactions.run((manager) =>
      this.grants.removeGrants(
        manager,
        apiKeyId,
        request.userId,
        resources.map((resource) => ({ organizationId: resource.organizationId, resourceType: resource.type, resourceId: resource.id })),
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
}
