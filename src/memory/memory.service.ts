import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Conditions, Sql } from '../database/sql.js';
import { fromRow, type Activity, type ActivityRow } from '../activity/activity-log.js';
import { judgmentFacets, type Decision, type JudgeType, type Side } from './decisions.js';
import type { QueryJudgmentsRequest, SuggestRequest } from './dto/memory.dto.js';
import { JudgmentSearch, type MatchQuery, type SearchScope } from './judgment-search.js';
import { queryTerms } from './query-terms.js';
import { chooseScope, NO_EVIDENCE, suggestionsFor, type Evidence, type Scope, type Suggestion } from './suggestion.js';

const DAY_MS = 86_400_000;
/** Age at which a judgment's recency weight halves (six months). */
const HALF_WEIGHT_AGE_MS = 182.5 * DAY_MS;
const TOP_REASONS = 3;

/** A judgment in the contract's fields (part 8). */
export interface JudgmentFields {
  id: string;
  organizationId: string;
  documentId: string;
  decision: Decision;
  recommendation: Side | null;
  reviewerId: string;
  reason: string | null;
  timestamp: number;
}

/**
 * A judgment as judgments/query returns it: the contract's fields, and upstream's names for the
 * same facts (`recordId` = `id`, `reasoning` = `reason`, `createdAt` = `timestamp`, `actionUser`
 * the reviewer as the activity named them) with the facets upstream adds.
 */
export interface JudgmentRecord extends JudgmentFields {
  recordId: string;
  reasoning: string | null;
  confidence: number | null;
  judgeType: JudgeType;
  contentType: string | null;
  annotationId: string | null;
  actionUser: Activity['actionUser'];
  createdAt: number;
  agent: Record<string, unknown> | null;
}

type EvidenceRow = {
  side: Side;
  count: number | string;
  relevance: number | string;
  weight: number | string;
  reviewers: number | string;
  stale: number | string;
  recent_count: number | string;
  recent_relevance: number | string;
};

export const MemoryErrors = {
  documentNeedsOrganization: () => new ApiError('INVALID_ARGUMENT', 'data.documentId requires data.organizationId.'),
  annotationNeedsOrganization: () => new ApiError('INVALID_ARGUMENT', 'data.annotationId requires data.organizationId.'),
  emptyQuery: () => new ApiError('INVALID_ARGUMENT', 'data.query must be a non-empty string'),
};

/** Suggested decisions from past judgments (contract part 8). */
@Injectable()
export class MemoryService {
  constructor(
    private readonly sql: Sql,
    private readonly search: JudgmentSearch,
  ) {}

  /**
   * Tries the scopes from the narrowest the request names to all content, and answers from the
   * first whose leading side has at least two relevant judgments: one query per scope tried.
   */
  async suggest(principal: ApiKeyPrincipal, request: SuggestRequest): Promise<{ primary: Suggestion | null; conflict: Suggestion | null }> {
    const { apiKeyId } = principal;
    if (request.documentId !== undefined && request.organizationId === undefined) throw MemoryErrors.documentNeedsOrganization();
    if (request.query.trim() === '') throw MemoryErrors.emptyQuery();
    const terms = queryTerms(request.query);
    if (!terms.length) return { primary: null, conflict: null };
    const { organizationId, documentId } = request;
    const scopes: [Scope, SearchScope][] = [
      ...(documentId !== undefined ? [['document', { apiKeyId, organizationId, documentId }] as [Scope, SearchScope]] : []),
      ...(organizationId !== undefined ? [['organization', { apiKeyId, organizationId }] as [Scope, SearchScope]] : []),
      ['apiKey', { apiKeyId }],
    ];
    const now = Date.now();
    for (const [scope, filter] of scopes) {
      const { evidence, reasons } = await this.scopeEvidence(this.search.matches(filter, terms), now);
      const leading = chooseScope(evidence);
      if (!leading) continue;
      const { primary, conflict } = suggestionsFor(scope, evidence, leading);
      primary.topReasons = reasons[primary.recommendation];
      if (conflict) conflict.topReasons = reasons[conflict.recommendation];
      return { primary, conflict };
    }
    return { primary: null, conflict: null };
  }

  /**
   * The judgments, newest first, filtered as asked; one thread's (`annotationId`) are its newest
   * `limit`, oldest first, as upstream reads a thread. The activity of each is read alongside,
   * for what only it holds (the reviewer as named, confidence, the agent block).
   */
  async query(principal: ApiKeyPrincipal, request: QueryJudgmentsRequest): Promise<JudgmentRecord[]> {
    const { apiKeyId } = principal;
    if (request.documentId !== undefined && request.organizationId === undefined) throw MemoryErrors.documentNeedsOrganization();
    if (request.annotationId !== undefined && request.organizationId === undefined) throw MemoryErrors.annotationNeedsOrganization();
    const where = new Conditions()
      .equal('j.api_key_id', apiKeyId)
      .equal('j.organization_id', request.organizationId)
      .equal('j.document_id', request.documentId)
      .equal('j.decision', request.decision)
      .equal('j.reviewer_id', request.reviewerId)
      .equal('j.judge_type', request.judgeType)
      .equal('j.content_type', request.contentType)
      .equal('j.annotation_id', request.annotationId);
    const rows = await this.sql.rows<ActivityRow & { organization_id: string; decision: Decision; side: Side | null; reviewer_id: string; reason: string | null }>(
      `SELECT j.organization_id, j.decision, j.side, j.reviewer_id, j.reason,
          a.id, a.document_id, a.feature_type, a.action_type, a.target_entity_id, a.timestamp, a.body
        FROM judgment j JOIN activity a ON a.api_key_id = j.api_key_id AND a.organization_id = j.organization_id AND a.id = j.activity_id
        WHERE ${where} ORDER BY j.timestamp DESC, j.activity_id DESC LIMIT :limit`,
      { ...where.parameters, limit: request.limit ?? 20 },
    );
    const records = rows.map((row) => {
      const activity = fromRow(apiKeyId, row.organization_id, row);
      const { judgeType, contentType, annotationId, confidence, agent } = judgmentFacets(activity);
      return {
        id: activity.id,
        organizationId: row.organization_id,
        documentId: activity.metadata.documentId,
        decision: row.decision,
        recommendation: row.side,
        reviewerId: row.reviewer_id,
        reason: row.reason,
        timestamp: activity.timestamp,
        recordId: activity.id,
        reasoning: row.reason,
        confidence,
        judgeType,
        contentType,
        annotationId,
        actionUser: activity.actionUser,
        createdAt: activity.timestamp,
        agent,
      };
    });
    return request.annotationId === undefined ? records : records.reverse();
  }

  /**
   * Per side: counts and sums of the relevant judgments, and the top reasons, in one statement,
   * so the engine finds and ranks the matches once. A judgment weighs between half and all of
   * its recency, 1 / (1 + age / six months), by its relevance r: 0.5 + 0.5 r / (1 + r). The
   * bounds keep a barely relevant judgment from vanishing. The matches are a materialised CTE,
   * read by both halves of the statement without being searched twice.
   */
  private async scopeEvidence(matches: MatchQuery, now: number): Promise<{ evidence: Evidence; reasons: Record<Side, string[]> }> {
    const rows = await this.sql.rows<EvidenceRow & { kind: 'evidence' | 'reason'; reason: string | null }>(
      `WITH m AS MATERIALIZED (${matches.sql}),
        reasons AS (SELECT side, reason, MAX(relevance) AS best FROM m WHERE reason IS NOT NULL GROUP BY side, reason),
        ranked AS (SELECT side, reason, ROW_NUMBER() OVER (PARTITION BY side ORDER BY best DESC, reason) AS position FROM reasons)
      SELECT 'evidence' AS kind, side, COUNT(*) AS count, SUM(relevance) AS relevance,
          SUM((0.5 + 0.5 * relevance / (1 + relevance)) / (1 + (CASE WHEN timestamp > :now THEN 0 ELSE :now - timestamp END) / :halfWeightAge)) AS weight,
          COUNT(DISTINCT reviewer_id) AS reviewers,
          SUM(CASE WHEN timestamp < :staleBefore THEN 1 ELSE 0 END) AS stale,
          SUM(CASE WHEN timestamp >= :recentAfter THEN 1 ELSE 0 END) AS recent_count,
          SUM(CASE WHEN timestamp >= :recentAfter THEN relevance ELSE 0 END) AS recent_relevance,
          NULL AS reason, 0 AS position
        FROM m GROUP BY side
      UNION ALL
      SELECT 'reason', side, NULL, NULL, NULL, NULL, NULL, NULL, NULL, reason, position FROM ranked WHERE position <= ${TOP_REASONS}
      ORDER BY kind, side, position`,
      { ...matches.parameters, now, halfWeightAge: HALF_WEIGHT_AGE_MS, staleBefore: now - 182.5 * DAY_MS, recentAfter: now - 2 * DAY_MS },
    );
    const evidence: Evidence = { approve: NO_EVIDENCE, reject: NO_EVIDENCE };
    const reasons: Record<Side, string[]> = { approve: [], reject: [] };
    for (const row of rows) {
      if (row.kind === 'reason') {
        reasons[row.side].push(row.reason!);
        continue;
      }
      evidence[row.side] = {
        count: Number(row.count),
        relevance: Number(row.relevance),
        weight: Number(row.weight),
        reviewers: Number(row.reviewers),
        stale: Number(row.stale),
        recentCount: Number(row.recent_count),
        recentRelevance: Number(row.recent_relevance),
      };
    }
    return { evidence, reasons };
  }
}
