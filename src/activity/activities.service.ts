import { Injectable } from '@nestjs/common';
import { JsonText } from '../common/envelope.js';
import { ApiError } from '../common/errors.js';
import { newSortableId } from '../common/ids.js';
import { PageTokens, PAGE_SIZE } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, type ItemResults } from '../common/batch.js';
import { DocumentsService } from '../directory/documents.service.js';
import { ActivityLog, type Activity } from './activity-log.js';
import { UPDATABLE_FIELDS, type AddActivitiesRequest, type DeleteActivitiesRequest, type GetActivitiesRequest, type UpdateActivitiesRequest } from './dto/activity.dto.js';

/** Per-item messages of contract 6.1. */
export const ActivityMessages = {
  added: 'Activity added.',
  updated: 'Activity updated.',
  updateFailed: 'Failed to update activity.',
  deleted: 'Activity deleted.',
  deleteFailed: 'Failed to delete activity.',
  /** The record was added while the key's activity config was immutable (upstream names no message for this). */
  immutable: 'Activity is immutable.',
} as const;

const OPERATION_GET = 'activities/get';
type Cursor = [timestamp: number, id: string];

/** The activity log's operations (contract 6.1); every statement goes through `ActivityLog`, the table's owner. */
@Injectable()
export class ActivitiesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly log: ActivityLog,
    private readonly pageTokens: PageTokens,
    private readonly documents: DocumentsService,
  ) {}

  /** Adds a batch; the organization and the document are created when missing. */
  async add(principal: ApiKeyPrincipal, request: AddActivitiesRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId, documentId } = request;
    const now = Date.now();
    const activities = request.activities.map(({ id, featureType, actionType, targetEntityId, timestamp, metadata, ...rest }): Activity => ({
      id: id ?? newSortableId('act_'),
      featureType,
      actionType,
      ...(targetEntityId !== undefined ? { targetEntityId } : {}),
      ...rest,
      // The caller's metadata is kept; the service's three keys replace any of the same name.
      metadata: { ...metadata, apiKey: apiKeyId, documentId, organizationId },
      timestamp: timestamp ?? now,
    }));
    const immutable = await this.transactions.run(async (manager) => {
      await this.documents.ensureDocument(manager, apiKeyId, organizationId, documentId);
      // Ids the service made are new; a caller's id may overwrite an earlier record, unless that one is immutable.
      const given = request.activities.flatMap((a) => (a.id !== undefined ? [a.id] : []));
      const kept = new Set(given.length ? (await this.log.lockRecords(manager, apiKeyId, organizationId, given)).filter((a) => a.immutable).map((a) => a.id) : []);
      await this.log.write(manager, apiKeyId, activities.filter((a) => !kept.has(a.id)), { added: true, fresh: !given.length });
      return kept;
    });
    return Object.fromEntries(activities.map((a) => [a.id, immutable.has(a.id) ? failed(a.id, ActivityMessages.immutable) : ok(a.id, ActivityMessages.added)]));
  }

  /**
   * One keyset page over (timestamp, id) in the requested direction, every filter an AND. The
   * records come as JSON text (`ActivityLog.pageJson`); the token is bound to the filters.
   */
  async get(principal: ApiKeyPrincipal, request: GetActivitiesRequest): Promise<{ activities: JsonText; pageToken?: string }> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    const order = request.order ?? 'desc';
    const pageSize = request.pageSize ?? PAGE_SIZE.default;
    const filters = {
      organizationId,
      documentId: request.documentId ?? null,
      targetEntityId: request.targetEntityId ?? null,
      featureTypes: request.featureTypes ?? null,
      actionTypes: request.actionTypes ?? null,
      userId: request.userId ?? null,
      activityIds: request.activityIds ?? null,
      order,
    };
    const after = request.pageToken ? this.pageTokens.decode<Cursor>(apiKeyId, OPERATION_GET, filters, request.pageToken) : undefined;

    const { records, cut } = await this.log.pageJson(
      apiKeyId,
      organizationId,
      { documentId: request.documentId, targetEntityId: request.targetEntityId, userId: request.userId, featureTypes: request.featureTypes, actionTypes: request.actionTypes, activityIds: request.activityIds },
      order,
      after,
      pageSize + 1,
    );
    const { items, next } = this.pageTokens.page(records, pageSize, apiKeyId, OPERATION_GET, filters, (last): Cursor => [last.timestamp, last.id], cut);
    return { activities: new JsonText().text(`[${items.map((record) => record.json).join(',')}]`), pageToken: next };
  }

  /** Changes only the updatable fields of existing records; a missing record fails as its item. */
  async update(principal: ApiKeyPrincipal, request: UpdateActivitiesRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    return this.transactions.run(async (manager) => {
      // Locked: two updates of one record changing different fields must not undo each other.
      const current = new Map((await this.log.lockRecords(manager, apiKeyId, organizationId, request.activities.map((a) => a.id))).map((activity) => [activity.id, activity]));
      const changed: Activity[] = [];
      for (const { id, ...fields } of request.activities) {
        const before = current.get(id);
        if (!before || before.immutable) continue;
        const updates = Object.fromEntries(Object.entries(fields).filter(([field, value]) => value !== undefined && field in UPDATABLE_FIELDS));
        changed.push({ ...before, ...updates });
      }
      if (changed.length) await this.log.write(manager, apiKeyId, changed, { added: false, fresh: false });
      const outcome = (id: string) => {
        const before = current.get(id);
        if (!before) return failed(id, ActivityMessages.updateFailed);
        return before.immutable ? failed(id, ActivityMessages.immutable) : ok(id, ActivityMessages.updated);
      };
      return Object.fromEntries(request.activities.map(({ id }) => [id, outcome(id)]));
    });
  }

  /**
   * Deletes the mutable records matching all the given conditions (document, entity, ids).
   * Results: every record deleted, and each requested id that was not as `success: false`
   * (an immutable record says so).
   */
  async delete(principal: ApiKeyPrincipal, request: DeleteActivitiesRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId, documentId, targetEntityId, activityIds } = request;
    if (documentId === undefined && targetEntityId === undefined && activityIds === undefined) {
      throw new ApiError('INVALID_ARGUMENT', 'At least one of data.documentId, data.activityIds or data.targetEntityId is required.');
    }
    const { deleted, immutable } = await this.transactions.run(async (manager) => {
      const deleted = await this.log.delete(manager, apiKeyId, organizationId, { documentId, targetEntityId, activityIds, mutableOnly: true });
      const gone = new Set(deleted);
      const left = (activityIds ?? []).filter((id) => !gone.has(id));
      const matching = (a: Activity) => a.immutable && (documentId === undefined || a.metadata.documentId === documentId) && (targetEntityId === undefined || a.targetEntityId === targetEntityId);
      const immutable = left.length ? (await this.log.lockRecords(manager, apiKeyId, organizationId, left)).filter(matching).map((a) => a.id) : [];
      return { deleted, immutable };
    });
    const results: ItemResults = Object.fromEntries(deleted.map((id) => [id, ok(id, ActivityMessages.deleted)]));
    for (const id of immutable) results[id] = failed(id, ActivityMessages.immutable);
    for (const id of activityIds ?? []) results[id] ??= failed(id, ActivityMessages.deleteFailed);
    return results;
  }
}
