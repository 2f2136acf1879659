import { ApiProperty } from '@nestjs/swagger';
import { actionUserSchema } from '../../activity/dto/activity.dto.js';
import { anyObject, nullableRef, SuccessResult } from '../../common/openapi-responses.js';
import type { Activity } from '../../activity/activity-store.js';
import { DECISIONS, JUDGE_TYPES, type Decision, type JudgeType, type Side } from '../decisions.js';
import { SCOPES } from '../suggestion.js';

const SIDES = ['approve', 'reject'];

/** A suggested decision (rest-interface part 2, contract part 8). */
export class SuggestionView {
  @ApiProperty({ enum: SIDES }) recommendation!: string;
  @ApiProperty({ minimum: 0, maximum: 1, description: "Wilson lower bound of the side's weighted share." }) confidence!: number;
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

/** A judgment in the contract's fields (part 8), as the user-data export also lists them. */
export class JudgmentFieldsView {
  @ApiProperty({ description: 'The id of the activity that recorded it.' }) id!: string;
  @ApiProperty() organizationId!: string;
  @ApiProperty() documentId!: string;
  @ApiProperty({ enum: DECISIONS }) decision!: Decision;
  @ApiProperty({ type: 'string', enum: [...SIDES, null], nullable: true, description: 'The side the decision counts for; null for neither.' })
  recommendation!: Side | null;
  @ApiProperty() reviewerId!: string;
  @ApiProperty({ type: 'string', nullable: true }) reason!: string | null;
  @ApiProperty({ description: 'Milliseconds since the epoch.' }) timestamp!: number;
}

/** A judgment as `memory/judgments/query` answers it: the contract's fields and upstream's. */
export class JudgmentView extends JudgmentFieldsView {
  @ApiProperty({ description: 'Upstream name of `id`.' }) recordId!: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'Upstream name of `reason`.' }) reasoning!: string | null;
  @ApiProperty({ type: 'number', minimum: 0, maximum: 1, nullable: true, description: '`entityData.confidence` of the decision activity.' }) confidence!:
    number | null;
  @ApiProperty({ enum: JUDGE_TYPES }) judgeType!: JudgeType;
  @ApiProperty({ type: 'string', nullable: true, description: '`entityData.contentType` of the decision activity.' }) contentType!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: "The comment thread: `entityData.annotationId`, else the activity's `targetEntityId`." })
  annotationId!: string | null;
  @ApiProperty({ ...actionUserSchema(), description: 'The reviewer, as the activity named them.' }) actionUser!: Activity['actionUser'];
  @ApiProperty({ description: 'Upstream name of `timestamp`.' }) createdAt!: number;
  @ApiProperty({ ...anyObject('`entityData.agent` of the decision activity: the AI agent that decided.'), nullable: true }) agent!: Record<
    string,
    unknown
  > | null;
}

/** The judgments in `data` (the contract), and again as upstream reads them: `results` and `total`. */
export class JudgmentsResult extends SuccessResult {
  @ApiProperty({ type: [JudgmentView] }) data!: JudgmentView[];
  @ApiProperty({ type: [JudgmentView], description: "The same judgments as `data` (upstream's name)." }) results!: JudgmentView[];
  @ApiProperty({ type: 'integer', description: 'How many judgments this answer holds (at most `limit`).' }) total!: number;
}
