import { ApiProperty } from '@nestjs/swagger';
import { mapOf, SuccessResult } from '../../common/openapi-responses.js';

/** One user's outcome in a group membership change (rest-interface part 4). */
export class GroupMemberOutcome {
  @ApiProperty() success!: boolean;
  @ApiProperty() organizationUserGroupId!: string;
  @ApiProperty() message!: string;
}

/** `result` of a group membership change: each user's outcome under its userId. */
export class GroupMemberOutcomesResult extends SuccessResult {
  @ApiProperty(mapOf(GroupMemberOutcome, "Each user's outcome, under its userId.")) data!: Record<string, GroupMemberOutcome>;
}
