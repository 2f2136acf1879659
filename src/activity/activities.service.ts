import { Injectable } from '@nestjs/common';
import { JsonText } from '../common/envelope.js';
import { ApiError } from '../common/errors.js';
import { newSortableId } from '../common/ids.js';
import { PageTokens, PAGE_BYTES, PAGE_SIZE } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Conditions, Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, type ItemResults } from '../common/batch.js';
import { DocumentsService } from '../directory/documents.service.js';
import { ActivityLog, fromRow, rowJson, type Activity, type ActivityRow } from './activity-log.js';
import { UPDATABLE_FIELDS, type AddActivitiesRequest, type DeleteActivitiesRequest, type GetActivitiesRequest, type UpdateActivitiesRequest } from './dto/activity.dto.js';

/** Per-item messages of contract 6.1. */
export const ActivityMessages = {
  added: 'Activity added.',
  updated: 'Activity updated.',
  updateFailed: 'Failed to update activity.',
  deleted: 'Activity deleted.',
  deleteFailed: 'Failed to delete activity.',
} as const;

const OPERATION_GET = 'activities/get';
type Cursor = [timestamp: number, id: string];

/** The activity log's operations (contract 6.1); every write goes through `ActivityLog`. */
@Injectable()
export class ActivitiesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly sql: Sql,
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
    await this.transactions.run(async (manager) => {
      await this.documents.ensureDocument(manager, apiKeyId, organizationId, documentId);
      // Ids the service made are new; a caller's id may overwrite an earlier record.
      await this.log.write(manager, apiKeyId, activities, { added: true, fresh: request.activities.every((a) => a.id === undefined) });
    });
    return Object.fromEntries(activities.map((a) => [a.id, ok(a.id, ActivityMessages.added)]));
  }

  /**
   * One keyset page over (timestamp, id) in the requested direction, every filter an AND. The
   * records are spliced as JSON text (see `rowJson`); the token is bound to the filters.
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

    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .equal('organization_id', organizationId)
      .equal('document_id', request.documentId)
      .equal('target_entity_id', request.targetEntityId)
      .equal('action_user_id', request.userId)
      .among('feature_type', request.featureTypes)
      .among('action_type', request.actionTypes)
      .among('id', request.activityIds);
    if (after) where.add(`(timestamp, id) ${order === 'desc' ? '<' : '>'} (:afterTimestamp, :afterId)`, { afterTimestamp: after[0], afterId: after[1] });
    const direction = order === 'desc' ? 'DESC' : 'ASC';
    const { rows, cut } = await this.sql.rowsWithinBytes<ActivityRow>(
      `SELECT id, document_id, feature_type, action_type, target_entity_id, timestamp, body FROM activity
        WHERE ${where} ORDER BY timestamp ${direction}, id ${direction} LIMIT :limit`,
      { ...where.parameters, limit: pageSize + 1 },
      PAGE_BYTES,
      (row) => row.body.length,
    );
    const { items, next } = this.pageTokens.page(rows, pageSize, apiKeyId, OPERATION_GET, filters, (last): Cursor => [Number(last.timestamp), last.id], cut);
    return { activities: new JsonText().text(`[${items.map((row) => rowJson(apiKeyId, organizationId, row)).join(',')}]`), pageToken: next };
  }

  /** Changes only the updatable fields of existing records; a missing record fails as its item. */
  async update(principal: ApiKeyPrincipal, request: UpdateActivitiesRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    return this.transactions.run(async (manager) => {
      // Locked: two updates of one record changing different fields must not undo each other.
      const rows = await this.sql.lockRows<ActivityRow>(
        manager,
        'SELECT id, document_id, feature_type, action_type, target_entity_id, timestamp, body FROM activity WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id IN (:...ids)',
        { apiKeyId, organizationId, ids: request.activities.map((a) => a.id) },
      );
      const current = new Map(rows.map((row) => [row.id, fromRow(apiKeyId, organizationId, row)]));
      const changed: Activity[] = [];
      for (const { id, ...fields } of request.activities) {
        const before = current.get(id);
        if (!before) continue;
        const updates = Object.fromEntries(Object.entries(fields).filter(([field, value]) => value !== undefined && field in UPDATABLE_FIELDS));
        changed.push({ ...before, ...updates });
      }
      if (changed.length) await this.log.write(manager, apiKeyId, changed, { added: false, fresh: false });
      return Object.fromEntries(
        request.activities.map(({ id }) => [id, current.has(id) ? ok(id, ActivityMessages.updated) : failed(id, ActivityMessages.updateFailed)]),
      );
    });
  }

  /**
   * Deletes the records matching all the given conditions (document, entity, ids). Results: every
   * record deleted, and each requested id that matched nothing as `success: false`.
   */
  async delete(principal: ApiKeyPrincipal, request: DeleteActivitiesRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId, documentId, targetEntityId, activityIds } = request;
    if (documentId === undefined && targetEntityId === undefined && activityIds === undefined) {
      throw new ApiError('INVALID_ARGUMENT', 'At least one of data.documentId, data.activityIds or data.targetEntityId is required.');
    }
    const deleted = await this.transactions.run((manager) => this.log.delete(manager, apiKeyId, organizationId, { documentId, targetEntityId, activityIds }));
    const results: ItemResults = Object.fromEntries(deleted.map((id) => [id, ok(id, ActivityMessages.deleted)]));
    for (const id of activityIds ?? []) results[id] ??= failed(id, ActivityMessages.deleteFailed);
    return results;
  }
}
