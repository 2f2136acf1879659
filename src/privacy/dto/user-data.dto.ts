import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageTokenField } from '../../common/paging.js';
import { IsId, IsIdArray, IsOptionalIdArray } from '../../common/validation/rules.js';

/** Users per deletion request (upstream's limit). */
export const MAX_DELETE_USERS = 100;
/** Organizations a deletion may be restricted to. */
export const MAX_DELETE_ORGANIZATIONS = 100;

export class GetUserDataRequest {
  @IsId() organizationId!: string;
  @IsId() userId!: string;
  @PageTokenField() pageToken?: string;
}

export class DeleteUserDataRequest {
  @ApiProperty({ minItems: 1, uniqueItems: true })
  @IsIdArray(MAX_DELETE_USERS, { min: 1, unique: true })
  userIds!: string[];

  /** Erase only within these organizations; absent: everywhere under the key. */
  @ApiPropertyOptional({ minItems: 1, uniqueItems: true, description: 'Erase only within these organizations; absent: in all of them.' })
  @IsOptionalIdArray(MAX_DELETE_ORGANIZATIONS, { min: 1, unique: true })
  organizationIds?: string[];
}

export class DeleteUserDataStatusRequest {
  @ApiProperty({ description: 'The `jobId` that `users/data/delete` answered.' }) @IsId() jobId!: string;
}
