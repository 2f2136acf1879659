import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ActivityLog, type Activity, type ActivityObserver, type ActivityWrite } from '../activity/activity-log.js';
import { Sql } from '../database/sql.js';
import { decisionOf, judgmentFacets, judgmentText, sideOf } from './decisions.js';
import { scopeTokens } from './judgment-search.js';

const COLUMNS = ['api_key_id', 'organization_id', 'activity_id', 'document_id', 'decision', 'side', 'reviewer_id', 'reason', 'text', 'scope_tokens', 'timestamp', 'judge_type', 'content_type', 'annotation_id'] as const;
/** Ids per DELETE, well under every engine's parameter limit. */
const DELETE_CHUNK = 500;

/**
 * Judgments follow their activities (contract part 8): written, rewritten and deleted with them,
 * in the same transaction, by observing the activity log.
 */
@Injectable()
export class JudgmentLog implements ActivityObserver, OnModuleInit {
  constructor(
    private readonly sql: Sql,
    private readonly activities: ActivityLog,
  ) {}

  onModuleInit(): void {
    this.activities.observers.add(this);
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
      rows.push([apiKeyId, organizationId, activity.id, documentId, decision, sideOf(decision), activity.actionUser.userId, reason, text, scopeTokens(apiKeyId, organizationId, documentId), activity.timestamp, judgeType, contentType, annotationId]);
    }
    await this.sql.insert(manager, 'judgment', COLUMNS, rows, { target: ['api_key_id', 'organization_id', 'activity_id'], update: COLUMNS.slice(3) });
    for (const [organizationId, ids] of notDecisions) await this.activitiesDeleted(manager, apiKeyId, organizationId, ids);
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
