import type { AccessType } from '../common/access-types.js';
import { idsOf } from '../directory/folder-paths.js';
import { effectiveDocumentAccess, effectiveFolderAccess, type FolderAccessNode } from '../directory/effective-access.js';
import type { AccessRole } from './entities/grant.entity.js';
import type { Grant } from './grant-store.js';
import {
  explainPermission,
  resolveOrganization,
  resolvePermission,
  usable,
  type GrantsAt,
  type GrantView,
  type PermissionCase,
  type PermissionEntry,
} from './resolve-permission.js';

/** A grant as resolution reads it (loaded by `GrantStore.grantsAt`). */
export type GrantRow = Grant;

/**
 * Everything resolution needs about one organization, loaded in a fixed number of queries:
 * the requested folders and documents, every folder above them, and the users' grants there.
 */
export interface PermissionWorld {
  organization: { id: string; disabled: boolean };
  keyDefault: AccessType;
  /**
   * Requested folders and the documents' folders, by id, with every folder above them that sets
   * its own access type (one that inherits may be left out: it changes no effective type).
   */
  folders: ReadonlyMap<string, { id: string; path: string; accessType: AccessType | null }>;
  documents: ReadonlyMap<string, { id: string; folderId: string | null; accessType: AccessType | null; disabled: boolean }>;
  grants: readonly GrantRow[];
  /** Unix seconds. */
  now: number;
}

const NO_GRANTS: GrantsAt = Object.freeze({});

/**
 * Which rule decided a user's entry on a folder or document (permissions explain), in the
 * wire's words: the place it names (`resourceId`) and, when a grant decided, that grant.
 * Organization roles count for public and organizationPrivate resources, so those name the
 * organization grant that gave the role. Resolution reads no user groups: access never comes
 * through a group, so no decision names one.
 */
export interface GrantedBy {
  kind: 'organizationDisabled' | 'documentDisabled' | 'documentGrant' | 'folderGrant' | 'publicAccess' | 'organizationRole' | 'noAccess';
  resourceId?: string;
  grant?: GrantedByGrant;
}

/** The grant that decided: a regular one (`expiresAt` null) or a temporary one. */
export interface GrantedByGrant {
  accessRole: AccessRole;
  expiresAt: number | null;
  temporary: boolean;
}

/** A user's entry on one folder or document and the rule that decided it. */
export interface ExplainedEntry {
  entry: PermissionEntry;
  grantedBy: GrantedBy;
}

/** One user's grants, by place; `undefined` organization when they hold none there. */
interface UserGrants {
  organization?: GrantsAt;
  folder: Map<string, GrantsAt>;
  document: Map<string, GrantsAt>;
  /** One text per grant on a folder or document (see `signature`), in the order read. */
  below: string[];
}

/** The folders and documents a request names, in its order (deduplicated), and which of them exist. */
export interface RequestedResources {
  folder: readonly string[];
  document: readonly string[];
  exists: { folder: (id: string) => boolean; document: (id: string) => boolean };
}

/** Positions in `RequestedResources` (ascending) whose entries a user's own grants may change. */
export interface PersonalPositions {
  folder: number[];
  document: number[];
}

/** Where requested resources are: by id, and beneath each folder above them. */
interface RequestIndex {
  requested: RequestedResources;
  position: { folder: Map<string, number>; document: Map<string, number> };
  beneath: Map<string, { type: 'folder' | 'document'; at: number }[]>;
}

/** What resolution knows of one folder or document whoever asks. */
interface ResourceFacts {
  /** Folders above it, nearest first. */
  above: string[];
  accessType: AccessType;
  disabled: boolean;
  /** Entries of users with no grant on it or above it, which depend on their role alone. */
  byRole: Map<AccessRole | '', PermissionEntry>;
}

/**
 * Resolves any number of users on the world's folders and documents. What does not depend on
 * the user (folder chains, effective access types) is worked out once per resource; users
 * without grants on a resource or above it share its entry by organization role; and `kindOf`
 * tells which users resolve alike everywhere, so callers work out one answer per kind.
 */
export class PermissionResolver {
  private readonly users = new Map<string, UserGrants>();
  private readonly nodes: Map<string, FolderAccessNode>;
  private readonly facts = { folder: new Map<string, ResourceFacts>(), document: new Map<string, ResourceFacts>() };
  private readonly signatures = new Map<string, string>();
  private index: RequestIndex | undefined;

  constructor(private readonly world: PermissionWorld) {
    for (const row of world.grants) {
      let user = this.users.get(row.userId);
      if (!user) this.users.set(row.userId, (user = { folder: new Map(), document: new Map(), below: [] }));
      let place: GrantsAt;
      if (row.resourceType === 'organization') place = user.organization ??= {};
      else {
        place = user[row.resourceType].get(row.resourceId) ?? user[row.resourceType].set(row.resourceId, {}).get(row.resourceId)!;
        // The id with its length before it (it may hold any character); the rest are words and numbers.
        user.below.push(
          `${row.resourceType} ${row.resourceId.length}:${row.resourceId} ${row.temporary ? 'temporary' : 'regular'} ${row.accessRole} ${row.expiresAt}`,
        );
      }
      place[row.temporary ? 'temporary' : 'regular'] = { accessRole: row.accessRole, expiresAt: row.expiresAt };
    }
    this.nodes = new Map([...world.folders.values()].map((f) => [f.id, { id: f.id, pathIds: idsOf(f.path), accessType: f.accessType }]));
  }

  /** The user's role in the organization (a live organization grant), if any. */
  organizationRole(userId: string): AccessRole | undefined {
    return usable(this.users.get(userId)?.organization ?? NO_GRANTS, this.world.now)?.accessRole;
  }

  /** The organization's entry for a user of that role (none: no live organization grant). */
  organizationEntry(organizationRole: AccessRole | undefined) {
    return resolveOrganization(this.world.organization.disabled, organizationRole);
  }

  /**
   * Users of the same kind get the same answers everywhere: resolution reads nothing of a user
   * but their live organization role and their grants on folders and documents. Most users
   * hold no grants below the organization, so 100 users are typically two or three kinds.
   */
  kindOf(userId: string): string {
    return `${this.organizationRole(userId) ?? ''}\u0000${this.signature(userId)}`;
  }

  /** One user's entry for one existing folder or document (the caller checks existence). */
  permission(userId: string, resource: { type: 'folder' | 'document'; id: string }): PermissionEntry {
    const facts = this.factsOf(resource.type, resource.id);
    const user = this.users.get(userId);
    const organizationRole = this.organizationRole(userId);
    const own = user?.[resource.type].get(resource.id);
    const above = this.aboveGrants(user, facts);
    const personal = own !== undefined || above.some((place) => place !== NO_GRANTS);
    if (!personal) return this.byRole(resource.type, facts, organizationRole);
    return resolvePermission(this.caseOf(resource.type, facts, own, above, organizationRole));
  }

  /**
   * The entries of a user of `organizationRole` who holds no grants on these resources or above
   * them: what every such user shares, worked out once per resource and role.
   */
  roleEntries<M>(
    organizationRole: AccessRole | undefined,
    type: 'folder' | 'document',
    ids: readonly string[],
    exists: (id: string) => boolean,
    missing: M,
  ): (PermissionEntry | M)[] {
    return ids.map((id) => (exists(id) ? this.byRole(type, this.factsOf(type, id), organizationRole) : missing));
  }

  /**
   * Where among the requested resources the user's own grants may change their entry from their
   * role's: resources they hold a grant on, and those beneath a folder they hold one on. Found
   * from the user's grants through an index of the request made once, so a user costs what
   * their grants touch, not what the request names.
   */
  personalPositions(userId: string, requested: RequestedResources): PersonalPositions {
    const user = this.users.get(userId);
    if (!user || (user.folder.size === 0 && user.document.size === 0)) return { folder: [], document: [] };
    const index = this.indexOf(requested);
    const found = { folder: new Set<number>(), document: new Set<number>() };
    for (const type of ['folder', 'document'] as const) {
      for (const id of user[type].keys()) {
        const at = index.position[type].get(id);
        if (at !== undefined) found[type].add(at);
      }
    }
    for (const folderId of user.folder.keys()) for (const { type, at } of index.beneath.get(folderId) ?? []) found[type].add(at);
    const ascending = (positions: Set<number>) => [...positions].sort((a, b) => a - b);
    return { folder: ascending(found.folder), document: ascending(found.document) };
  }

  /** The shared entry of users of `organizationRole` without grants of their own on or above the resource. */
  private byRole(type: 'folder' | 'document', facts: ResourceFacts, organizationRole: AccessRole | undefined): PermissionEntry {
    let entry = facts.byRole.get(organizationRole ?? '');
    if (!entry) facts.byRole.set(organizationRole ?? '', (entry = resolvePermission(this.caseOf(type, facts, undefined, [], organizationRole))));
    return entry;
  }

  /** The request's existing resources by id and beneath each folder above them; built on first use. */
  private indexOf(requested: RequestedResources): RequestIndex {
    if (this.index?.requested === requested) return this.index;
    const index: RequestIndex = { requested, position: { folder: new Map(), document: new Map() }, beneath: new Map() };
    for (const type of ['folder', 'document'] as const) {
      requested[type].forEach((id, at) => {
        if (!requested.exists[type](id)) return;
        index.position[type].set(id, at);
        for (const folderId of this.factsOf(type, id).above) {
          const list = index.beneath.get(folderId) ?? index.beneath.set(folderId, []).get(folderId)!;
          list.push({ type, at });
        }
      });
    }
    return (this.index = index);
  }

  /**
   * `permission`'s entry with the rule that decided it (permissions explain): the same case, by
   * the same resolution (`resolvePermission` delegates to `explainPermission`), never the shared
   * entries (they keep no decision).
   */
  explain(userId: string, resource: { type: 'folder' | 'document'; id: string }): ExplainedEntry {
    const facts = this.factsOf(resource.type, resource.id);
    const user = this.users.get(userId);
    const above = this.aboveGrants(user, facts);
    const { entry, decision } = explainPermission(
      this.caseOf(resource.type, facts, user?.[resource.type].get(resource.id), above, this.organizationRole(userId)),
    );
    const organizationId = this.world.organization.id;
    switch (decision.rule) {
      case 'organizationDisabled':
        return { entry, grantedBy: { kind: 'organizationDisabled', resourceId: organizationId } };
      case 'documentDisabled':
        return { entry, grantedBy: { kind: 'documentDisabled', resourceId: resource.id } };
      case 'grant': {
        const grant = { accessRole: decision.grant.accessRole, expiresAt: decision.grant.expiresAt, temporary: decision.temporary };
        // Place 0 is the resource itself; a folder's own grant is a folder grant too.
        const onItself = decision.place === 0;
        const kind = onItself && resource.type === 'document' ? 'documentGrant' : 'folderGrant';
        return { entry, grantedBy: { kind, resourceId: onItself ? resource.id : facts.above[decision.place - 1]!, grant } };
      }
      case 'publicAccess':
        return { entry, grantedBy: decision.byOrganizationRole ? this.byOrganizationGrant('publicAccess', user) : { kind: 'publicAccess' } };
      case 'organizationRole':
        return { entry, grantedBy: this.byOrganizationGrant('organizationRole', user) };
      case 'noAccess':
        return { entry, grantedBy: { kind: 'noAccess' } };
    }
  }

  /** The organization grant that gave the user their organization role (`organizationRole` reads the same one). */
  private byOrganizationGrant(kind: 'publicAccess' | 'organizationRole', user: UserGrants | undefined): GrantedBy {
    const place = user?.organization ?? NO_GRANTS;
    const grant: GrantView = usable(place, this.world.now)!;
    return {
      kind,
      resourceId: this.world.organization.id,
      grant: { accessRole: grant.accessRole, expiresAt: grant.expiresAt, temporary: grant !== place.regular },
    };
  }

  /** The user's grants at each folder above the resource, nearest first; none read when they hold no folder grants. */
  private aboveGrants(user: UserGrants | undefined, facts: ResourceFacts): GrantsAt[] {
    return user?.folder.size ? facts.above.map((id) => user.folder.get(id) ?? NO_GRANTS) : [];
  }

  /** What resolution looks at for one user on one resource. */
  private caseOf(
    kind: 'folder' | 'document',
    facts: ResourceFacts,
    own: GrantsAt | undefined,
    above: GrantsAt[],
    organizationRole: AccessRole | undefined,
  ): PermissionCase {
    return {
      kind,
      organizationDisabled: this.world.organization.disabled,
      documentDisabled: facts.disabled,
      own: own ?? NO_GRANTS,
      above,
      accessType: facts.accessType,
      organizationRole,
      now: this.world.now,
    };
  }

  /**
   * The user's grants on folders and documents, as a comparable string ('' when none): the
   * texts of their grant rows (one per place and kind, regular or temporary), sorted, since
   * rows come in no set order. Made from the rows as they are read; sorted and joined once.
   */
  private signature(userId: string): string {
    let signature = this.signatures.get(userId);
    if (signature === undefined) {
      const below = this.users.get(userId)?.below ?? [];
      signature = below.length < 2 ? (below[0] ?? '') : below.sort().join('\n');
      this.signatures.set(userId, signature);
    }
    return signature;
  }

  /** Folders above the resource, its effective type and disabled flag; worked out once. */
  private factsOf(type: 'folder' | 'document', id: string): ResourceFacts {
    let facts = this.facts[type].get(id);
    if (!facts) {
      const keyDefault = this.world.keyDefault;
      if (type === 'folder') {
        const node = this.nodes.get(id)!;
        facts = {
          above: node.pathIds.slice(0, -1).reverse(),
          accessType: effectiveFolderAccess(node, this.nodes, keyDefault),
          disabled: false,
          byRole: new Map(),
        };
      } else {
        const document = this.world.documents.get(id)!;
        const folder = document.folderId ? this.nodes.get(document.folderId) : undefined;
        facts = {
          above: folder ? [...folder.pathIds].reverse() : [],
          accessType: effectiveDocumentAccess(document.accessType, folder ? effectiveFolderAccess(folder, this.nodes, keyDefault) : undefined, keyDefault),
          disabled: document.disabled,
          byRole: new Map(),
        };
      }
      this.facts[type].set(id, facts);
    }
    return facts;
  }
}
