import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SuccessResult, WithMetadata } from '../../common/openapi-responses.js';

/** An organization as `organizations/get` answers it, its metadata spread beside the known fields (contract part 4). */
@WithMetadata('Caller metadata is spread at the top level; the known fields win.')
export class OrganizationView {
  @ApiProperty({ description: 'The organizationId.' }) id!: string;
  @ApiProperty({ type: 'string', nullable: true }) organizationName!: string | null;
  @ApiProperty() disabled!: boolean;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) createdAt!: number;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) lastUpdated!: number;
}

export class OrganizationsResult extends SuccessResult {
  @ApiProperty({ type: [OrganizationView] }) data!: OrganizationView[];
  @ApiPropertyOptional({ description: 'Token of the next page; absent on the last page.' }) nextPageToken?: string;
}
