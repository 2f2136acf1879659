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
 * Which rule of resolution decided an entry (see `explainPermission`). `place` of a grant is
 * where it is held: 0 the resource itself, i ≥ 1 the i-th folder above it (`above[i - 1]`);
 * `temporary` says which of that place's grants counted. Public access says whether the role
 * came from the organization role (else editor).
 */
export type PermissionDecision =
  | { rule: 'organizationDisabled' }
  | { rule: 'documentDisabled' }
  | { rule: 'grant'; place: number; grant: GrantView; temporary: boolean }
  | { rule: 'publicAccess'; byOrganizationRole: boolean }
  | { rule: 'organizationRole' }
  | { rule: 'noAccess' };

/** An entry with the rule that decided it. */
export interface ExplainedPermission {
  entry: PermissionEntry;
  decision: PermissionDecision;
}

/** The decisions that carry nothing of the case, shared rather than made per call. */
const DECIDED_BY = {
  organizationDisabled: Object.freeze({ rule: 'organizationDisabled' }),
  documentDisabled: Object.freeze({ rule: 'documentDisabled' }),
  publicByRole: Object.freeze({ rule: 'publicAccess', byOrganizationRole: true }),
  publicAsEditor: Object.freeze({ rule: 'publicAccess', byOrganizationRole: false }),
  organizationRole: Object.freeze({ rule: 'organizationRole' }),
  noAccess: Object.freeze({ rule: 'noAccess' }),
} as const satisfies Record<string, PermissionDecision>;

/**
 * Resolution of contract part 5, first match wins:
 * 1. a disabled organization or document denies;
 * 2. a live grant on the resource itself allows with its role;
 * 3. else the nearest folder above holding a live grant;
 * 4. else the effective access type: public allows (the organization role, else editor),
 *    organizationPrivate allows organization users with their role, restricted denies.
 * At one place a regular grant is used before a temporary one (a temporary grant never
 * replaces it), and a temporary grant's `expiresAt` is returned with the role it gives.
 *
 * The entry only; `explainPermission` is the same resolution (this delegates to it) with the
 * rule that decided, so permissions get and permissions explain can never disagree.
 */
export function resolvePermission(c: PermissionCase): PermissionEntry {
  return explainPermission(c).entry;
}

/** `resolvePermission`'s entry and the rule that decided it (permissions explain). */
export function explainPermission(c: PermissionCase): ExplainedPermission {
  const { accessType } = c;
  if (c.organizationDisabled) return { entry: denied(accessType, 'Access to this organization is disabled'), decision: DECIDED_BY.organizationDisabled };
  if (c.documentDisabled) return { entry: denied(accessType, 'Access to this document is disabled'), decision: DECIDED_BY.documentDisabled };
  // The resource itself (place 0), then the folders above it, nearest first.
  for (let place = 0; place <= c.above.length; place++) {
    const at = place === 0 ? c.own : c.above[place - 1]!;
    const grant = usable(at, c.now);
    if (grant) {
      const entry: AllowedEntry =
        grant.expiresAt === null ? allowed(grant.accessRole, accessType) : { accessRole: grant.accessRole, accessType, expiresAt: grant.expiresAt };
      return { entry, decision: { rule: 'grant', place, grant, temporary: grant !== at.regular } };
    }
  }
  if (accessType === 'public')
    return {
      entry: allowed(c.organizationRole ?? 'editor', accessType),
      decision: c.organizationRole ? DECIDED_BY.publicByRole : DECIDED_BY.publicAsEditor,
    };
  if (accessType === 'organizationPrivate' && c.organizationRole)
    return { entry: allowed(c.organizationRole, accessType), decision: DECIDED_BY.organizationRole };
  return { entry: denied(accessType, `User does not have access to this ${c.kind}`), decision: DECIDED_BY.noAccess };
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

/**
 * Entries without an expiry are shared, frozen objects, one per role and access type (or
 * message): a few kinds of entry answer every user and resource. Callers that encode answers
 * cache each entry's JSON by object (`permissionsJson`), so 100 users whose own grants give
 * them the same role were 100 encodings and are now one; and no answer may change an entry.
 */
const ALLOWED = new Map<AccessRole, Map<AccessType, AllowedEntry>>();
const DENIED = new Map<AccessType, Map<string, DeniedEntry>>();

function allowed(accessRole: AccessRole, accessType: AccessType): AllowedEntry {
  let byType = ALLOWED.get(accessRole);
  if (!byType) ALLOWED.set(accessRole, (byType = new Map()));
  let entry = byType.get(accessType);
  if (!entry) byType.set(accessType, (entry = Object.freeze({ accessRole, accessType })));
  return entry;
}

function denied(accessType: AccessType, error: string): DeniedEntry {
  // Both come from fixed sets (access types; this file's messages).
  let byError = DENIED.get(accessType);
  if (!byError) DENIED.set(accessType, (byError = new Map()));
  let entry = byError.get(error);
  if (!entry) byError.set(error, (entry = Object.freeze({ accessType, error, errorCode: 'permission_denied' as const })));
  return entry;
}
