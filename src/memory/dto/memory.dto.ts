import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { checkInteger, checkOneOf, checkString, IsOptionalId, Optional, Satisfies } from '../../common/validation.js';
import { DECISIONS, type Decision } from '../decisions.js';

export class SuggestRequest {
  /** What is being decided, in words; matched against past judgments' reasons and comments. */
  @ApiProperty({ maxLength: 2000 }) @Satisfies(checkString({ max: 2000 })) query!: string;
  /** Narrows precedent to this organization (then falls back to all content). */
  @ApiPropertyOptional() @IsOptionalId() organizationId?: string;
  /** Narrows to this document first; needs organizationId. */
  @ApiPropertyOptional() @IsOptionalId() documentId?: string;
}

export class QueryJudgmentsRequest {
  @ApiPropertyOptional() @IsOptionalId() organizationId?: string;
  /** Needs organizationId. */
  @ApiPropertyOptional() @IsOptionalId() documentId?: string;
  @ApiPropertyOptional({ enum: DECISIONS }) @Optional() @Satisfies(checkOneOf(DECISIONS)) decision?: Decision;
  @ApiPropertyOptional() @IsOptionalId() reviewerId?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, description: 'Default: 20.' }) @Optional() @Satisfies(checkInteger(1, 100)) limit?: number;
}
