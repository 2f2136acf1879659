import { PageSizeField, PageTokenField } from '../../common/paging.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { checkEmail, checkOneOf, checkString } from '../../common/validation/checks.js';
import { IsBatchWithMetadata, IsId, IsIdArray, IsOptionalBool, IsOptionalId, IsOptionalIdArray } from '../../common/validation/rules.js';
import { MAX_BATCH, MAX_FILTER_IDS } from '../../common/batch.js';
import { WithMetadata } from '../../common/openapi-responses.js';

export const ACCESS_ROLES = ['editor', 'viewer'] as const;
export const USER_FIELDS = ['userId', 'name', 'email', 'initial', 'accessRole'] as const;

const userFields = {
  name: checkString({ max: 1000, allowEmpty: true }),
  // One address, or "" for none: mail goes to it, so a list ("a@x.com, b@y.com") or a line break
  // would add recipients.
  email: (value: unknown) => (value === '' ? undefined : checkEmail(value)),
  initial: checkString({ max: 10, allowEmpty: true }),
};
/** v1 users: no accessRole (it would be metadata there, so it is refused to avoid surprises). */
const v1UserFields = { ...userFields, accessRole: () => 'is only accepted by the v2 operation' };
const v2UserFields = { ...userFields, accessRole: checkOneOf(ACCESS_ROLES) };

/** A user of v1 `users/add`: `{ userId, name?, email?, initial?, ...metadata }`, no `accessRole` (documentation; `v1UserFields` validates). */
@WithMetadata('Any other key but accessRole is caller metadata (any JSON value).')
export class UserV1Input {
  @ApiProperty() userId!: string;
  @ApiPropertyOptional({ maxLength: 1000 }) name?: string;
  @ApiPropertyOptional({ maxLength: 320, description: 'One e-mail address, or an empty string for none.' }) email?: string;
  @ApiPropertyOptional({ maxLength: 10, description: 'Absent: the first letter of the name, else of the e-mail.' }) initial?: string;
  [metadata: string]: unknown;
}

/** A user of v2 `users/add` and `users/update`: the v1 fields and `accessRole` (documentation; `v2UserFields` validates). */
@WithMetadata()
export class UserInput extends UserV1Input {
  @ApiPropertyOptional({ enum: ACCESS_ROLES, description: 'The role in the scope; absent: editor when added, unchanged when updated.' }) accessRole?:
    'editor' | 'viewer';
}

/** Where users are added, read, updated or removed: the organization, or one folder or document in it. */
export class UserScopeRequest {
  @IsId() organizationId!: string;
  @IsOptionalId() documentId?: string;
  @IsOptionalId() folderId?: string;
}

export class AddUsersV1Request extends UserScopeRequest {
  @ApiProperty({ type: [UserV1Input], maxItems: MAX_BATCH })
  @IsBatchWithMetadata('userId', v1UserFields, MAX_BATCH)
  users!: UserV1Input[];
}

export class AddUsersV2Request extends UserScopeRequest {
  @ApiProperty({ type: [UserInput], maxItems: MAX_BATCH })
  @IsBatchWithMetadata('userId', v2UserFields, MAX_BATCH)
  users!: UserInput[];

  /** Default true: a missing organization is created (rest-interface part 4, rule 4); false: it must exist. */
  @ApiPropertyOptional({ description: 'Default true: a missing organization is created. false: it must exist (NOT_FOUND otherwise).' })
  @IsOptionalBool()
  createOrganization?: boolean;

  /** With folderId: true creates the folder at top level when missing; default false (it must exist). */
  @ApiPropertyOptional({
    description: 'With folderId: true creates the folder (top level) when missing. Default false: the folder must exist (NOT_FOUND `Folder not found.`).',
  })
  @IsOptionalBool()
  createFolder?: boolean;

  /** With documentId: default true, a missing document is created at top level; false: it must exist. */
  @ApiPropertyOptional({
    description: 'With documentId: default true, a missing document is created (top level). false: it must exist (NOT_FOUND `Document does not exist`).',
  })
  @IsOptionalBool()
  createDocument?: boolean;
}

export class UpdateUsersRequest extends UserScopeRequest {
  @ApiProperty({ type: [UserInput], maxItems: MAX_BATCH })
  @IsBatchWithMetadata('userId', v2UserFields, MAX_BATCH)
  users!: UserInput[];
}

export class DeleteUsersRequest extends UserScopeRequest {
  @IsIdArray(MAX_BATCH, { min: 1 })
  userIds!: string[];
}

export class GetUsersV1Request {
  @IsId() organizationId!: string;
  @IsOptionalId() documentId?: string;

  @IsOptionalIdArray(MAX_FILTER_IDS)
  userIds?: string[];

  @IsOptionalIdArray(MAX_FILTER_IDS)
  organizationUserGroupIds?: string[];
}

export class GetUsersV2Request extends GetUsersV1Request {
  @IsOptionalId() folderId?: string;

  /** The users of every document of the organization (not its organization-level users); no documentId or folderId with it. */
  @IsOptionalBool() allDocuments?: boolean;

  /** With `allDocuments`: `data` is an object of document id → that document's users. */
  @IsOptionalBool() groupByDocumentId?: boolean;

  @PageSizeField()
  pageSize?: number;

  @PageTokenField() pageToken?: string;
}
