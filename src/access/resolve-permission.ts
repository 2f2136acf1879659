import type { AccessType } from '../common/access-types.js';
import type { AccessRole } from './entities/grant.entity.js';

/** A grant as resolution sees it; `expiresAt` in Unix seconds, null for a regular grant. */
export interface GrantView {
  accessRole: AccessRole;
  expiresAt: number | null;
}

/** The grants a user holds at one place (a resource or one folder above it). */
export interface GrantsAt {
  regular?: GrantView;
  temporary?: GrantView;
}

/** Everything contract part 5 looks at to decide one user's access to one folder or document. */
export interface PermissionCase {
  kind: 'document' | 'folder';
  organizationDisabled: boolean;
  /** Always false for folders. */
  documentDisabled: boolean;
  /** Grants on the resource itself. */
  own: GrantsAt;
  /** Grants on the folders containing it, nearest first. */
  above: GrantsAt[];
  /** The resource's effective access type (directory/effective-access.ts). */
  accessType: AccessType;
  /** The user's role in the organization, when they are an organization user. */
  organizationRole?: AccessRole;
  /** Unix seconds: grants expiring at or before it count as absent. */
  now: number;
}

export type AllowedEntry = { accessRole: AccessRole; accessType: AccessType; expiresAt?: number };
export type DeniedEntry = { accessType: AccessType; error: string; errorCode: 'permission_denied' };
export type PermissionEntry = AllowedEntry | DeniedEntry;

/**
 * Resolution of contract part 5, first match wins:
 * 1. a disabled organization or document denies;
 * 2. a live grant on the resource itself allows with its role;
 * 3. else the nearest folder above holding a live grant;
 * 4. else the effective access type: public allows (the organization role, else editor),
 *    organizationPrivate allows organization users with their role, restricted denies.
 * At one place a regular grant is used before a temporary one (a temporary grant never
 * replaces it), and a temporary grant's `expiresAt` is returned with the role it gives.
 */
export function resolvePermission(c: PermissionCase): PermissionEntry {
  const { accessType } = c;
  if (c.organizationDisabled) return denied(accessType, 'Access to this organization is disabled');
  if (c.documentDisabled) return denied(accessType, 'Access to this document is disabled');
  for (const place of [c.own, ...c.above]) {
    const grant = usable(place, c.now);
    if (grant)
      return grant.expiresAt === null ? { accessRole: grant.accessRole, accessType } : { accessRole: grant.accessRole, accessType, expiresAt: grant.expiresAt };
  }
  if (accessType === 'public') return { accessRole: c.organizationRole ?? 'editor', accessType };
  if (accessType === 'organizationPrivate' && c.organizationRole) return { accessRole: c.organizationRole, accessType };
  return denied(accessType, `User does not have access to this ${c.kind}`);
}

/** The organization entry: `{ accessRole }` for organization users, else denied. */
export function resolveOrganization(
  disabled: boolean,
  organizationRole: AccessRole | undefined,
): { accessRole: AccessRole } | { error: string; errorCode: 'permission_denied' } {
  if (disabled) return { error: 'Access to this organization is disabled', errorCode: 'permission_denied' };
  if (organizationRole) return { accessRole: organizationRole };
  return { error: 'User does not have access to organization', errorCode: 'permission_denied' };
}

/** The grant that counts at one place: the regular one, else a temporary one that has not expired. */
export function usable(place: GrantsAt, now: number): GrantView | undefined {
  if (place.regular && isLive(place.regular, now)) return place.regular;
  if (place.temporary && isLive(place.temporary, now)) return place.temporary;
  return undefined;
}

function isLive(grant: GrantView, now: number): boolean {
  return grant.expiresAt === null || grant.expiresAt > now;
}

function denied(accessType: AccessType, error: string): DeniedEntry {
  return { accessType, error, errorCode: 'permission_denied' };
}
