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
