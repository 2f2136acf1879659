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
  /** Requested folders, the documents' folders and all their ancestors, by id. */
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
 * the user (folder chains, effective access types) is worked out once per resource, and users
 * with the same grants share their answers, so 100 users × 100 resources cost little more than
 * the distinct kinds of user among them.
 */
export class PermissionResolver {
  private readonly users = new Map<string, UserGrants>();
  private readonly nodes: Map<string, FolderAccessNode>;
  private readonly resources = new Map<string, { above: string[]; accessType: AccessType; disabled: boolean }>();
  private readonly shared = new Map<string, PermissionEntry>();
  private readonly sharedEntries = new Map<string, Record<string, unknown>>();
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

  /** One user's entry for one existing folder or document (the caller checks existence). */
  permission(userId: string, resource: { type: 'folder' | 'document'; id: string }): PermissionEntry {
    const facts = this.facts(resource);
    const user = this.users.get(userId);
    const organizationRole = this.organizationRole(userId);
    const personal = user !== undefined && (user.folder.size > 0 || user.document.size > 0);
    const sharedKey = personal ? undefined : `${resource.type}\u0000${resource.id}\u0000${organizationRole ?? ''}`;
    const cached = sharedKey === undefined ? undefined : this.shared.get(sharedKey);
    if (cached) return cached;
    const entry = resolvePermission({
      kind: resource.type,
      organizationDisabled: this.world.organization.disabled,
      documentDisabled: facts.disabled,
      own: user?.[resource.type].get(resource.id) ?? NO_GRANTS,
      above: personal ? facts.above.map((id) => user!.folder.get(id) ?? NO_GRANTS) : [],
      accessType: facts.accessType,
      organizationRole,
      now: this.world.now,
    });
    if (sharedKey !== undefined) this.shared.set(sharedKey, entry);
    return entry;
  }

  /**
   * One user's entries for a list of resources, missing ones given by `missing`. Users whose
   * grants below the organization are the same (most hold none) and who share an organization
   * role get the same answers, so they share one computed object per resource type.
   */
  entries<M>(userId: string, type: 'folder' | 'document', ids: readonly string[], exists: (id: string) => boolean, missing: M): Record<string, PermissionEntry | M> {
    const sharedKey = `${type}\u0000${this.organizationRole(userId) ?? ''}\u0000${this.signature(userId)}`;
    const cached = this.sharedEntries.get(sharedKey);
    if (cached) return cached as Record<string, PermissionEntry | M>;
    const result: Record<string, PermissionEntry | M> = {};
    for (const id of ids) result[id] = exists(id) ? this.permission(userId, { type, id }) : missing;
    this.sharedEntries.set(sharedKey, result);
    return result;
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
