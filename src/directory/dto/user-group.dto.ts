import { IsId, IsIdArray, IsNestedArray, IsOptionalBool, IsOptionalIdArray, IsOptionalText } from '../../common/validation/rules.js';
import { MAX_BATCH } from '../../common/batch.js';

export class UserGroupInput {
  @IsId() groupId!: string;

  @IsOptionalText(1000, { allowEmpty: true })
  groupName?: string;
}

export class AddUserGroupsRequest {
  @IsId() organizationId!: string;

  /** Create the organization first when it does not exist (upstream v2); otherwise each group fails with "Organization does not exist". */
  @IsOptionalBool() createOrganization?: boolean;

  @IsNestedArray(() => UserGroupInput, MAX_BATCH, { min: 1 })
  organizationUserGroups!: UserGroupInput[];
}

export class AddGroupUsersRequest {
  @IsId() organizationId!: string;
  @IsId() organizationUserGroupId!: string;

  @IsIdArray(MAX_BATCH, { min: 1 })
  userIds!: string[];
}

export class DeleteGroupUsersRequest {
  @IsId() organizationId!: string;
  @IsId() organizationUserGroupId!: string;

  /** The members to remove; or `deleteAll: true`. */
  @IsOptionalIdArray(MAX_BATCH, { min: 1 })
  userIds?: string[];

  @IsOptionalBool() deleteAll?: boolean;
}
