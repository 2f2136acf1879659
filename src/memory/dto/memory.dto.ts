import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptionalId, IsOptionalInteger, IsOptionalOneOf, IsOptionalText, IsText } from '../../common/validation/rules.js';
import { DECISIONS, JUDGE_TYPES, type Decision, type JudgeType } from '../decisions.js';

export class SuggestRequest {
  /** What is being decided, in words; matched against past judgments' reasons and comments. */
  @IsText(2000) query!: string;
  /** Narrows precedent to this organization (then falls back to all content). */
  @IsOptionalId() organizationId?: string;
  /** Narrows to this document first; needs organizationId. */
  @IsOptionalId() documentId?: string;
}

export class QueryJudgmentsRequest {
  @IsOptionalId() organizationId?: string;
  /** Needs organizationId. */
  @IsOptionalId() documentId?: string;
  @IsOptionalOneOf(DECISIONS) decision?: Decision;
  @IsOptionalId() reviewerId?: string;
  /** Who decided: `entityData.judgeType` of the decision activity (else `agent` when it carries an `agent` block, else `human`). */
  @IsOptionalOneOf(JUDGE_TYPES) judgeType?: JudgeType;
  /** The kind of content judged: `entityData.contentType` of the decision activity. */
  @IsOptionalText(256) contentType?: string;
  /** One comment thread's judgments, oldest first (the newest `limit` of them); needs organizationId. */
  @IsOptionalId() annotationId?: string;
  @ApiPropertyOptional({ description: 'Default: 20.' }) @IsOptionalInteger(1, 100) limit?: number;
}
