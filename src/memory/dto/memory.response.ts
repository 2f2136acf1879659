import { ApiProperty } from '@nestjs/swagger';
import { nullableRef, SuccessResult } from '../../common/openapi-responses.js';
import { DECISIONS } from '../decisions.js';
import { SCOPES } from '../suggestion.js';

const SIDES = ['approve', 'reject'];

/** A suggested decision (rest-interface part 2, contract part 8). */
export class SuggestionView {
  @ApiProperty({ enum: SIDES }) recommendation!: string;
  @ApiProperty({ minimum: 0, maximum: 1, description: 'Wilson lower bound of the side\'s weighted share.' }) confidence!: number;
  @ApiProperty({ type: 'integer', description: 'Judgments counted.' }) basedOn!: number;
  @ApiProperty({ enum: Object.keys(SCOPES) }) scope!: string;
  @ApiProperty({ enum: Object.values(SCOPES) }) scopeLabel!: string;
  @ApiProperty({ type: [String], maxItems: 3, description: 'Distinct reasons, most relevant first.' }) topReasons!: string[];
  @ApiProperty({ type: 'integer' }) uniqueReviewers!: number;
  @ApiProperty({ type: [String], description: 'Conflict and freshness warnings.' }) caveats!: string[];
}

/**
 * `result` of memory suggest: only `primary` and `conflict`, without `status` and `message`
 * (rest-interface convention 2), so not a `SuccessResult`.
 */
export class SuggestResult {
  @ApiProperty(nullableRef(SuggestionView, 'The best-grounded recommendation; null without enough relevant judgments.')) primary!: SuggestionView | null;
  @ApiProperty(nullableRef(SuggestionView, 'The other side, when the evidence is split.')) conflict!: SuggestionView | null;
}

/** A judgment as `memory/judgments/query` answers it. */
export class JudgmentView {
  @ApiProperty({ description: 'The id of the activity that recorded it.' }) id!: string;
  @ApiProperty() organizationId!: string;
  @ApiProperty() documentId!: string;
  @ApiProperty({ enum: DECISIONS }) decision!: string;
  @ApiProperty({ type: 'string', enum: [...SIDES, null], nullable: true, description: 'The side the decision counts for; null for neither.' }) recommendation!: string | null;
  @ApiProperty() reviewerId!: string;
  @ApiProperty({ type: 'string', nullable: true }) reason!: string | null;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) timestamp!: number;
}

export class JudgmentsResult extends SuccessResult {
  @ApiProperty({ type: [JudgmentView] }) data!: JudgmentView[];
}
