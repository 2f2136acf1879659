import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { mapOf, SuccessResult } from '../../common/openapi-responses.js';
import { ACCESS_TYPES } from '../../common/access-types.js';

const ACCESS_ROLES = ['editor', 'viewer'];

/** A user's organization entry: `accessRole` for an organization user, else denied (contract part 5). */
export class OrganizationPermissionView {
  @ApiPropertyOptional({ enum: ACCESS_ROLES, description: 'Present when allowed.' }) accessRole?: string;
  @ApiPropertyOptional({ description: 'Present when denied.' }) error?: string;
  @ApiPropertyOptional({ enum: ['permission_denied'], description: 'Present when denied.' }) errorCode?: string;
}

/**
 * A user's permission entry on a folder or document (rest-interface part 2): allowed entries
 * carry `accessRole` and `accessType`, denied ones `accessType`, `error` and `errorCode`.
 */
export class PermissionEntryView {
  @ApiPropertyOptional({ enum: ACCESS_ROLES, description: 'Present when allowed.' }) accessRole?: string;
  @ApiPropertyOptional({ enum: ACCESS_TYPES, description: 'The effective access type; present on allowed and denied entries.' }) accessType?: string;
  @ApiPropertyOptional({ description: 'Unix seconds; present for temporary access.' }) expiresAt?: number;
  @ApiPropertyOptional({ description: 'Present when denied.' }) error?: string;
  @ApiPropertyOptional({ enum: ['permission_denied', 'does_not_exist'], description: 'Present when denied.' }) errorCode?: string;
}

/** Access fields given with permissions add. */
export class AccessContextView {
  @ApiProperty({ type: [String], description: '`fieldName:value` strings.' }) accessFields!: string[];
}

/** One user's permissions, each kind keyed by resource id. */
export class UserPermissionsView {
  @ApiProperty(mapOf(OrganizationPermissionView, 'The requested organization, under its id.')) organization!: Record<string, OrganizationPermissionView>;
  @ApiPropertyOptional(mapOf(PermissionEntryView, 'With `folderIds`: each folder under its id.')) folders?: Record<string, PermissionEntryView>;
  @ApiPropertyOptional(mapOf(PermissionEntryView, 'With `documentIds`: each document under its id.')) documents?: Record<string, PermissionEntryView>;
  @ApiPropertyOptional({ type: AccessContextView, description: 'For users given access fields.' }) context?: AccessContextView;
}

export class PermissionsResult extends SuccessResult {
  @ApiProperty(mapOf(UserPermissionsView, 'Each user under their id.')) data!: Record<string, UserPermissionsView>;
}

const GRANTED_BY_KINDS = ['organizationDisabled', 'documentDisabled', 'documentGrant', 'folderGrant', 'publicAccess', 'organizationRole', 'noAccess'];

/** The stored grant that decided (permissions explain). */
export class GrantedByGrantView {
  @ApiProperty({ enum: ACCESS_ROLES, description: "The grant's role." }) accessRole!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Unix seconds when a temporary grant ends; null for a regular grant.' }) expiresAt!:
    number | null;
  @ApiProperty({ description: 'Whether it is a temporary grant (permissions add with `expiresAt`); a regular grant at the same place is always used first.' })
  temporary!: boolean;
}

/**
 * Which rule decided the entry, the first that applies in this order (contract part 5). User
 * groups grant nothing here (resolution reads only grants held by the user), so no rule names one.
 */
export class GrantedByView {
  @ApiProperty({
    enum: GRANTED_BY_KINDS,
    description: [
      '`organizationDisabled`: the organization is disabled, which denies everyone (`resourceId`: the organization).',
      '`documentDisabled`: the document is disabled, which denies everyone, grants included (`resourceId`: the document).',
      "`documentGrant`: the user's live grant on the document itself (`resourceId`: the document; `grant`).",
      "`folderGrant`: the user's live grant on the nearest folder holding one: the requested folder itself, else the folders above, nearest first (`resourceId`: that folder; `grant`).",
      '`publicAccess`: no grant applies and the effective access type is public: organization users get their organization role (`resourceId`: the organization; `grant`: their organization grant), anyone else editor (neither field).',
      '`organizationRole`: no grant applies, the effective access type is organizationPrivate and the user is an organization user: their organization role (`resourceId`: the organization; `grant`: their organization grant).',
      '`noAccess`: no grant applies and the access type lets the user in nowhere (restricted, or organizationPrivate for a user outside the organization): denied.',
    ].join(' '),
  })
  kind!: string;

  @ApiPropertyOptional({
    description: 'The organization, document or folder the rule names; absent for `noAccess` and for `publicAccess` without an organization role.',
  })
  resourceId?: string;

  @ApiPropertyOptional({
    type: GrantedByGrantView,
    description: "The grant that decided: the document's or folder's grant, or the organization grant that gave the role. Absent where no grant decided.",
  })
  grant?: GrantedByGrantView;
}

/**
 * The user's permission entry on the document or folder, exactly as permissions get answers it,
 * with the rule that decided it.
 */
export class ExplainedPermissionView extends PermissionEntryView {
  @ApiProperty({ type: GrantedByView, description: 'Which rule decided the entry, and through which grant.' }) grantedBy!: GrantedByView;
}

export class PermissionExplainedResult extends SuccessResult {
  @ApiProperty({ type: ExplainedPermissionView }) data!: ExplainedPermissionView;
}
