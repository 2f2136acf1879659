import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsId, IsIdArray, IsNestedArray, IsOptionalBool, IsOptionalIdArray, IsOptionalText } from '../../common/validation/rules.js';
import { MAX_BATCH } from '../../common/batch.js';

export class UserGroupInput {
  @ApiProperty() @IsId() groupId!: string;

  @ApiPropertyOptional()
  @IsOptionalText(1000, { allowEmpty: true })
  groupName?: string;
}

export class AddUserGroupsRequest {
  @ApiProperty() @IsId() organizationId!: string;

  /** Create the organization first when it does not exist (upstream v2); otherwise each group fails with "Organization does not exist". */
  @ApiPropertyOptional() @IsOptionalBool() createOrganization?: boolean;

  @ApiProperty({ type: [UserGroupInput], maxItems: MAX_BATCH })
  @IsNestedArray(() => UserGroupInput, MAX_BATCH, { min: 1 })
  organizationUserGroups!: UserGroupInput[];
}

export class AddGroupUsersRequest {
  @ApiProperty() @IsId() organizationId!: string;
  @ApiProperty() @IsId() organizationUserGroupId!: string;

  @ApiProperty({ type: [String], maxItems: MAX_BATCH })
  @IsIdArray(MAX_BATCH, { min: 1 })
  userIds!: string[];
}

export class DeleteGroupUsersRequest {
  @ApiProperty() @IsId() organizationId!: string;
  @ApiProperty() @IsId() organizationUserGroupId!: string;

  /** The members to remove; or `deleteAll: true`. */
  @ApiPropertyOptional({ type: [String], maxItems: MAX_BATCH })
  @IsOptionalIdArray(MAX_BATCH, { min: 1 })
  userIds?: string[];

  @ApiPropertyOptional() @IsOptionalBool() deleteAll?: boolean;
}
