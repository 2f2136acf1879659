import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { listOf, mapOfLists, SuccessResult } from '../../common/openapi-responses.js';

/** A user as `users/get` answers it (rest-interface part 4). */
export class UserView {
  @ApiProperty() userId!: string;
  @ApiProperty({ type: 'string', nullable: true }) name!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) email!: string | null;
}

export class UsersResult extends SuccessResult {
  @ApiProperty({
    oneOf: [listOf(UserView), mapOfLists(UserView, "Each document's users, under the document's id (`groupByDocumentId`).")],
    description: 'The users; with `allDocuments` and `groupByDocumentId`, an object of document id → its users.',
  })
  data!: UserView[] | Record<string, UserView[]>;
  @ApiPropertyOptional({ description: 'Token of the next page; absent on the last page.' }) nextPageToken?: string;
}
