import { PageSizeField, PageTokenField } from '../../common/paging.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { checkBoolean, checkOneOf, checkString, IsId, IsIdArray, IsOptionalId, Optional, Satisfies } from '../../common/validation.js';
import { checkItems, MAX_BATCH, MAX_FILTER_IDS } from '../batch.js';

export const ACCESS_ROLES = ['editor', 'viewer'] as const;
export const USER_FIELDS = ['userId', 'name', 'email', 'initial', 'accessRole'] as const;

const userFields = {
  name: checkString({ max: 1000, allowEmpty: true }),
  email: checkString({ max: 320, allowEmpty: true }),
  initial: checkString({ max: 10, allowEmpty: true }),
};
/** v1 users: no accessRole (it would be metadata there, so it is refused to avoid surprises). */
const v1Users = checkItems('userId', { ...userFields, accessRole: () => 'is only accepted by the v2 operation' });
const v2Users = checkItems('userId', { ...userFields, accessRole: checkOneOf(ACCESS_ROLES) });

/** `{ userId, name?, email?, initial?, accessRole? (v2), ...metadata }`. */
export type UserInput = { userId: string; name?: string; email?: string; initial?: string; accessRole?: 'editor' | 'viewer' } & Record<string, unknown>;

/** Where users are added, read, updated or removed: the organization, or one folder or document in it. */
export class UserScopeRequest {
  @ApiProperty() @IsId() organizationId!: string;
  @ApiPropertyOptional() @IsOptionalId() documentId?: string;
  @ApiPropertyOptional() @IsOptionalId() folderId?: string;
}

export class AddUsersV1Request extends UserScopeRequest {
  @ApiProperty({ type: 'array', items: { type: 'object' }, maxItems: MAX_BATCH })
  @Satisfies(v1Users)
  users!: UserInput[];
}

export class AddUsersV2Request extends UserScopeRequest {
  @ApiProperty({ type: 'array', items: { type: 'object' }, maxItems: MAX_BATCH })
  @Satisfies(v2Users)
  users!: UserInput[];

  /** Default true: a missing organization is created (rest-interface part 4, rule 4). */
  @ApiPropertyOptional() @Optional() @Satisfies(checkBoolean) createOrganization?: boolean;
}

export class UpdateUsersRequest extends UserScopeRequest {
  @ApiProperty({ type: 'array', items: { type: 'object' }, maxItems: MAX_BATCH })
  @Satisfies(v2Users)
  users!: UserInput[];
}

export class DeleteUsersRequest extends UserScopeRequest {
  @ApiProperty({ type: [String], maxItems: MAX_BATCH })
  @IsIdArray(MAX_BATCH, { min: 1 })
  userIds!: string[];
}

export class GetUsersV1Request {
  @ApiProperty() @IsId() organizationId!: string;
  @ApiPropertyOptional() @IsOptionalId() documentId?: string;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_FILTER_IDS })
  @Optional()
  @IsIdArray(MAX_FILTER_IDS)
  userIds?: string[];

  @ApiPropertyOptional({ type: [String], maxItems: MAX_FILTER_IDS })
  @Optional()
  @IsIdArray(MAX_FILTER_IDS)
  organizationUserGroupIds?: string[];
}

export class GetUsersV2Request extends GetUsersV1Request {
  @ApiPropertyOptional() @IsOptionalId() folderId?: string;

  @PageSizeField()
  pageSize?: number;

  @PageTokenField() pageToken?: string;
}
