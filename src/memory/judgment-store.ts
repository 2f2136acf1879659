import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ActivityStore, fromRow, type Activity, type ActivityObserver, type ActivityRow, type ActivityWrite } from '../activity/activity-store.js';
import { Conditions, Sql } from '../database/sql.js';
import { DocumentMoves, type DocumentMove, type DocumentMoveObserver } from '../directory/document-moves.js';
import { decisionOf, judgmentFacets, judgmentText, sideOf, type Decision, type JudgeType, type Side } from './decisions.js';
import { scopeTokens } from './judgment-search.js';
import type { JudgmentFields } from './decisions.js';

const COLUMNS = [
  'api_key_id',
  'organization_id',
  'activity_id',
  'document_id',
  'decision',
  'side',
  'reviewer_id',
  'reason',
  'text',
  'scope_tokens',
  'timestamp',
  'judge_type',
  'content_type',
  'annotation_id',
] as const;
/** Ids per DELETE, well under every engine's parameter limit. */
const DELETE_CHUNK = 500;

/** What judgments/query filters by, every one an AND (absent: no filter). */
export interface JudgmentFilter {
  organizationId?: string;
  documentId?: string;
  decision?: Decision;
  reviewerId?: string;
  judgeType?: JudgeType;
  contentType?: string;
  annotationId?: string;
}

/**
 * Judgments follow their activities (contract part 8): written, rewritten and deleted with them,
 * in the same transaction, by observing the activity log. The owner of `judgment` but for its
 * full-text search (`JudgmentSearch`). Plain SQL throughout: batch upserts and filtered deletes
 * in `Sql`'s per-dialect forms, and reads that convert their numbers here.
 */
@Injectable()
export class JudgmentStore implements ActivityObserver, DocumentMoveObserver, OnModuleInit {
  constructor(
    private readonly sql: Sql,
    private readonly activities: ActivityStore,
    private readonly documentMoves: DocumentMoves,
  ) {}

  onModuleInit(): void {
    this.activities.observers.add(this);
    this.documentMoves.observers.add(this);
  }

  /**
   * Judgments drawn from a document's activities follow it to its new id (as the activities
   * do), in the moving transaction, their scope tokens with them so searches scoped to the new
   * id find them (the embedded engine's triggers re-index the rows). One statement.
   */
  async documentMoved(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void> {
    await this.sql.run(
      manager,
      'UPDATE judgment SET document_id = :to, scope_tokens = :scopeTokens WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND document_id = :from',
      { apiKeyId, ...move, scopeTokens: scopeTokens(apiKeyId, move.organizationId, move.to) },
    );
  }

  async activitiesWritten(manager: EntityManager, apiKeyId: string, activities: Activity[], { fresh }: ActivityWrite): Promise<void> {
    const rows = [];
    const notDecisions = new Map<string, string[]>();
    for (const activity of activities) {
      const { organizationId, documentId } = activity.metadata;
      const decision = decisionOf(activity);
      if (!decision) {
        // An overwrite or update may have taken the decision away; a new record had none.
        if (!fresh) (notDecisions.get(organizationId) ?? notDecisions.set(organizationId, []).get(organizationId)!).push(activity.id);
        continue;
      }
      const { text, reason } = judgmentText(activity);
      // The facets queries filter by have columns; confidence and agent are read from the activity.
      const { judgeType, contentType, annotationId } = judgmentFacets(activity);
      rows.push([
        apiKeyId,
        organizationId,
        activity.id,
        documentId,
        decision,
        sideOf(decision),
        activity.actionUser.userId,
        reason,
        text,
        scopeTokens(apiKeyId, organizationId, documentId),
        activity.timestamp,
        judgeType,
        contentType,
        annotationId,
      ]);
    }
    await this.sql.insert(manager, 'judgment', COLUMNS, rows, { target: ['api_key_id', 'organization_id', 'activity_id'], update: COLUMNS.slice(3) });
    for (const [organizationId, ids] of notDecisions) await this.activitiesDeleted(manager, apiKeyId, organizationId, ids);
  }

  /**
   * The newest `limit` judgments matching `filter`, newest first, each with the activity it was
   * drawn from (for what only the record holds: the reviewer as named, confidence, the agent
   * block). One statement: the activity row is joined, read only, and parsed by its owner's
   * `fromRow`.
   */
  async withActivities(apiKeyId: string, filter: JudgmentFilter, limit: number): Promise<{ judgment: JudgmentFields; activity: Activity }[]> {
    const where = new Conditions()
      .equal('j.api_key_id', apiKeyId)
      .equal('j.organization_id', filter.organizationId)
      .equal('j.document_id', filter.documentId)
      .equal('j.decision', filter.decision)
      .equal('j.reviewer_id', filter.reviewerId)
      .equal('j.judge_type', filter.judgeType)
      .equal('j.content_type', filter.contentType)
      .equal('j.annotation_id', filter.annotationId);
    const rows = await this.sql.rows<
      ActivityRow & { organization_id: string; decision: Decision; side: Side | null; reviewer_id: string; reason: string | null }
    >(
      `SELECT j.organization_id, j.decision, j.side, j.reviewer_id, j.reason,
          a.id, a.document_id, a.feature_type, a.action_type, a.target_entity_id, a.timestamp, a.body
        FROM judgment j JOIN activity a ON a.api_key_id = j.api_key_id AND a.organization_id = j.organization_id AND a.id = j.activity_id
        WHERE ${where} ORDER BY j.timestamp DESC, j.activity_id DESC LIMIT :limit`,
      { ...where.parameters, limit },
    );
    return rows.map((row) => {
      const activity = fromRow(apiKeyId, row.organization_id, row);
      const judgment: JudgmentFields = {
        id: activity.id,
        organizationId: row.organization_id,
        documentId: activity.metadata.documentId,
        decision: row.decision,
        recommendation: row.side,
        reviewerId: row.reviewer_id,
        reason: row.reason,
        timestamp: activity.timestamp,
      };
      return { judgment, activity };
    });
  }

  /**
   * The judgments the user made as reviewer in the organization, for the user-data export: by
   * activity id, after `after`, `limit` at most. One query.
   */
  async judgmentsBy(apiKeyId: string, organizationId: string, reviewerId: string, after: string | undefined, limit: number): Promise<JudgmentFields[]> {
    // Plain SQL: a keyset page (`Sql.rowsAfter`), numbers converted here.
    const rows = await this.sql.rowsAfter<{
      activity_id: string;
      document_id: string;
      decision: Decision;
      side: Side | null;
      reason: string | null;
      timestamp: number | string;
    }>(
      'SELECT activity_id, document_id, decision, side, reason, timestamp FROM judgment WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND reviewer_id = :userId',
      ['activity_id'],
      { apiKeyId, organizationId, userId: reviewerId },
      after === undefined ? undefined : [after],
      limit,
    );
    return rows.map((row) => ({
      id: row.activity_id,
      organizationId,
      documentId: row.document_id,
      decision: row.decision,
      recommendation: row.side,
      reviewerId,
      reason: row.reason,
      timestamp: Number(row.timestamp),
    }));
  }

  /**
   * Erases the judgments the users made as reviewers, in the given organizations (null: all of
   * the key's), in the erasing unit of work. Judgments follow their activities, so an erasure
   * that deleted those has removed them already; this catches any left behind. One statement.
   */
  async forgetReviewers(manager: EntityManager, apiKeyId: string, userIds: string[], organizationIds: string[] | null): Promise<void> {
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .among('reviewer_id', userIds)
      .among('organization_id', organizationIds ?? undefined);
    await this.sql.run(manager, `DELETE FROM judgment WHERE ${where}`, where.parameters);
  }

  async activitiesDeleted(manager: EntityManager, apiKeyId: string, organizationId: string, ids: string[]): Promise<void> {
    for (let start = 0; start < ids.length; start += DELETE_CHUNK) {
      await this.sql.run(manager, 'DELETE FROM judgment WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND activity_id IN (:...ids)', {
        apiKeyId,
        organizationId,
        ids: ids.slice(start, start + DELETE_CHUNK),
      });
    }
  }
}
