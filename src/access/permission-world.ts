import type { AccessType } from '../configs/key-configs.js';
import { idsOf } from '../directory/folder-paths.js';
import { effectiveDocumentAccess, effectiveFolderAccess, type FolderAccessNode } from './effective-access.js';
import type { AccessRole, GrantResourceType } from './entities/grant.entity.js';
import { resolveOrganization, resolvePermission, usable, type GrantsAt, type PermissionEntry } from './resolve-permission.js';

/** A grant row as loaded for resolution. */
export interface GrantRow {
  userId: string;
  resourceType: GrantResourceType;
  resourceId: string;
  temporary: boolean;
  accessRole: AccessRole;
  expiresAt: number | null;
}

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

/** One user's grants, by place; `undefined` organization when they hold none there. */
interface UserGrants {
  organization?: GrantsAt;
  folder: Map<string, GrantsAt>;
  document: Map<string, GrantsAt>;
}

/**
 * Resolves any number of users on the world's folders and documents. What does not depend on
 * the user (folder chains, effective access types) is worked out once per resource, and
 * `kindOf` tells which users resolve alike, so callers work out one answer per kind.
 */
export class PermissionResolver {
  private readonly users = new Map<string, UserGrants>();
  private readonly nodes: Map<string, FolderAccessNode>;
  private readonly resources = new Map<string, { above: string[]; accessType: AccessType; disabled: boolean }>();
  private readonly signatures = new Map<string, string>();

  constructor(private readonly world: PermissionWorld) {
    for (const row of world.grants) {
      let user = this.users.get(row.userId);
      if (!user) this.users.set(row.userId, (user = { folder: new Map(), document: new Map() }));
      const place: GrantsAt =
        row.resourceType === 'organization' ? (user.organization ??= {}) : (user[row.resourceType].get(row.resourceId) ?? user[row.resourceType].set(row.resourceId, {}).get(row.resourceId)!);
      place[row.temporary ? 'temporary' : 'regular'] = { accessRole: row.accessRole, expiresAt: row.expiresAt };
    }
    this.nodes = new Map([...world.folders.values()].map((f) => [f.id, { id: f.id, pathIds: idsOf(f.path), accessType: f.accessType }]));
  }

  /** The user's role in the organization (a live organization grant), if any. */
  organizationRole(userId: string): AccessRole | undefined {
    return usable(this.users.get(userId)?.organization ?? NO_GRANTS, this.world.now)?.accessRole;
  }

  organizationEntry(userId: string) {
    return resolveOrganization(this.world.organization.disabled, this.organizationRole(userId));
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
    const facts = this.facts(resource);
    const user = this.users.get(userId);
    return resolvePermission({
      kind: resource.type,
      organizationDisabled: this.world.organization.disabled,
      documentDisabled: facts.disabled,
      own: user?.[resource.type].get(resource.id) ?? NO_GRANTS,
      above: user ? facts.above.map((id) => user.folder.get(id) ?? NO_GRANTS) : [],
      accessType: facts.accessType,
      organizationRole: this.organizationRole(userId),
      now: this.world.now,
    });
  }

  /** One user's entries for a list of resources, missing ones given by `missing`. */
  entries<M>(userId: string, type: 'folder' | 'document', ids: readonly string[], exists: (id: string) => boolean, missing: M): Record<string, PermissionEntry | M> {
    // Own properties whatever the ids (an id of `__proto__` included).
    return Object.fromEntries(ids.map((id) => [id, exists(id) ? this.permission(userId, { type, id }) : missing]));
  }

  /** The user's grants on folders and documents, as a comparable string ('' when none). */
  private signature(userId: string): string {
    let signature = this.signatures.get(userId);
    if (signature === undefined) {
      const user = this.users.get(userId);
      const parts: string[] = [];
      for (const type of ['folder', 'document'] as const) {
        for (const [id, place] of user?.[type] ?? []) {
          parts.push(JSON.stringify([type, id, place.regular ?? null, place.temporary ?? null]));
        }
      }
      signature = parts.sort().join('\n');
      this.signatures.set(userId, signature);
    }
    return signature;
  }

  /** Folders above the resource (nearest first), its effective type and disabled flag; cached. */
  private facts(resource: { type: 'folder' | 'document'; id: string }) {
    const key = `${resource.type}\u0000${resource.id}`;
    let facts = this.resources.get(key);
    if (!facts) {
      const keyDefault = this.world.keyDefault;
      if (resource.type === 'folder') {
        const node = this.nodes.get(resource.id)!;
        facts = { above: node.pathIds.slice(0, -1).reverse(), accessType: effectiveFolderAccess(node, this.nodes, keyDefault), disabled: false };
      } else {
        const document = this.world.documents.get(resource.id)!;
        const folder = document.folderId ? this.nodes.get(document.folderId) : undefined;
        facts = {
          above: folder ? [...folder.pathIds].reverse() : [],
          accessType: effectiveDocumentAccess(document.accessType, folder ? effectiveFolderAccess(folder, this.nodes, keyDefault) : undefined, keyDefault),
          disabled: document.disabled,
        };
      }
      this.resources.set(key, facts);
    }
    return facts;
  }
}
