import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { anyObject } from '../../common/openapi-responses.js';
import { checkPlainObject } from '../../common/validation/checks.js';
import { IsId, IsOptionalBool, Satisfies } from '../../common/validation/rules.js';

/** `livestate/broadcast` (upstream's): a stateless event to every live client of a document. */
export class BroadcastRequest {
  @IsId() organizationId!: string;
  @IsId() documentId!: string;
  @ApiProperty({ description: 'Which live state the data is: a later broadcast with `merge` merges into the last of this id.' })
  @IsId()
  liveStateDataId!: string;
  @ApiProperty(anyObject('Any JSON object.')) @Satisfies(checkPlainObject) data!: Record<string, unknown>;
  @ApiPropertyOptional({ description: 'Merge into the last data of this id (its top-level fields), instead of replacing it. Default false.' })
  @IsOptionalBool()
  merge?: boolean;
}
