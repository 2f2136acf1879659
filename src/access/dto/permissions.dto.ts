import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsId,
  IsIdArray,
  IsNestedArray,
  IsOneOf,
  IsOptionalId,
  IsOptionalIdArray,
  IsOptionalInteger,
  IsOptionalOneOf,
  IsTextArray,
  NestedObject,
  OptionalNestedObject,
} from '../../common/validation/rules.js';
import { MAX_BATCH } from '../../common/batch.js';

/** Limits of contract 1.5 for permissions get. */
export const MAX_PERMISSION_USERS = 100;
export const MAX_PERMISSION_RESOURCES = 100;

export class GetPermissionsRequest {
  @IsId() organizationId!: string;

  @IsIdArray(MAX_PERMISSION_USERS, { min: 1 })
  userIds!: string[];

  @IsOptionalIdArray(MAX_PERMISSION_RESOURCES)
  folderIds?: string[];

  @IsOptionalIdArray(MAX_PERMISSION_RESOURCES)
  documentIds?: string[];
}

/**
 * Permissions explain: one user on one document (or folder), resolved as permissions get
 * resolves them, with the rule that decided. Exactly one of `documentId` and `folderId`: the
 * pair is a rule across fields, checked by `AccessService.explain`.
 */
export class ExplainPermissionRequest {
  @IsId() organizationId!: string;

  @IsId() userId!: string;

  @ApiPropertyOptional({ description: 'The document to explain; exactly one of `documentId` and `folderId`.' })
  @IsOptionalId()
  documentId?: string;

  @ApiPropertyOptional({ description: 'The folder to explain, instead of a document.' })
  @IsOptionalId()
  folderId?: string;
}

export class PermissionUser {
  @IsId() userId!: string;
}

export class PermissionResource {
  @IsOneOf(['organization', 'folder', 'document'])
  type!: 'organization' | 'folder' | 'document';

  @IsId() id!: string;

  /** Required for folders and documents; an organization's is its `id`. */
  @IsOptionalId() organizationId?: string;

  @ApiPropertyOptional({ description: 'Default: `editor`.' })
  @IsOptionalOneOf(['editor', 'viewer'])
  accessRole?: 'editor' | 'viewer';

  /** Unix seconds, in the future: makes the grant temporary. */
  @IsOptionalInteger(0, 1e11)
  expiresAt?: number;
}

export class PermissionSet {
  @IsNestedArray(() => PermissionResource, MAX_BATCH, { min: 1 })
  resources!: PermissionResource[];
}

export class AccessContextInput {
  /** `fieldName:value` strings. */
  @ApiProperty({ type: [String] })
  @IsTextArray(1000, { max: 100 })
  accessFields!: string[];
}

export class AddPermissionsRequest {
  @NestedObject(() => PermissionUser)
  user!: PermissionUser;

  @NestedObject(() => PermissionSet)
  permissions!: PermissionSet;

  /** Required with `context`. */
  @IsOptionalId() organizationId?: string;

  @OptionalNestedObject(() => AccessContextInput)
  context?: AccessContextInput;
}

export class RemovePermissionsRequest {
  @IsId() userId!: string;

  @NestedObject(() => PermissionSet)
  permissions!: PermissionSet;
}
