import { Injectable } from '@nestjs/common';
import { JsonText } from '../common/envelope.js';
import { newSortableId } from '../common/ids.js';
import { PageTokens, PAGE_SIZE } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, type ItemResults } from '../common/batch.js';
import { DocumentsService } from '../directory/documents.service.js';
import { ActivityStore, type Activity } from './activity-store.js';
import {
  UPDATABLE_FIELDS,
  type AddActivitiesRequest,
  type DeleteActivitiesRequest,
  type GetActivitiesRequest,
  type UpdateActivitiesRequest,
} from './dto/activity.dto.js';
import { ActivityErrors } from './activity.errors.js';

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

/** The activity log's operations (contract 6.1); every statement goes through `ActivityStore`, the table's owner. */
@Injectable()
export class ActivitiesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly log: ActivityStore,
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
      // Ids the service made are new; a caller's id may overwrite an earlier record, immutable or
      // not (contract 6.1: a supplied id that exists is overwritten, for idempotent retries).
      await this.log.write(manager, apiKeyId, activities, { added: true, fresh: request.activities.every((a) => a.id === undefined) });
    });
    return Object.fromEntries(activities.map((a) => [a.id, ok(a.id, ActivityMessages.added)]));
  }

  /**
   * One keyset page over (timestamp, id) in the requested direction, every filter an AND. The
   * records come as JSON text (`ActivityStore.pageJson`); the token is bound to the filters.
   */
  async get(principal: ApiKeyPrincipal, request: GetActivitiesRequest): Promise<{ data: JsonText; pageToken?: string }> {
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
      {
        documentId: request.documentId,
        targetEntityId: request.targetEntityId,
        userId: request.userId,
        featureTypes: request.featureTypes,
        actionTypes: request.actionTypes,
        activityIds: request.activityIds,
      },
      order,
      after,
      pageSize + 1,
    );
    const { items, next } = this.pageTokens.page(records, pageSize, apiKeyId, OPERATION_GET, filters, (last): Cursor => [last.timestamp, last.id], cut);
    return { data: new JsonText().text(`[${items.map((record) => record.json).join(',')}]`), pageToken: next };
  }

  /** Changes only the updatable fields of existing mutable records; a missing or immutable record fails as its item (the contract's one failure message). */
  async update(principal: ApiKeyPrincipal, request: UpdateActivitiesRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    return this.transactions.run(async (manager) => {
      // Locked: two updates of one record changing different fields must not undo each other.
      const current = new Map(
        (
          await this.log.lockRecords(
            manager,
            apiKeyId,
            organizationId,
            request.activities.map((a) => a.id),
          )
        ).map((activity) => [activity.id, activity]),
      );
      const changed: Activity[] = [];
      for (const { id, ...fields } of request.activities) {
        const before = current.get(id);
        if (!before || before.immutable) continue;
        const updates = Object.fromEntries(Object.entries(fields).filter(([field, value]) => value !== undefined && field in UPDATABLE_FIELDS));
        changed.push({ ...before, ...updates });
      }
      if (changed.length) await this.log.write(manager, apiKeyId, changed, { added: false, fresh: false });
      const updated = (id: string) => current.has(id) && !current.get(id)!.immutable;
      return Object.fromEntries(
        request.activities.map(({ id }) => [id, updated(id) ? ok(id, ActivityMessages.updated) : failed(id, ActivityMessages.updateFailed)]),
      );
    });
  }

  /**
   * Deletes the mutable records matching all the given conditions (document, entity, ids).
   * Results: every record deleted, and each requested id that was not (missing, or immutable)
   * as `success: false`.
   */
  async delete(principal: ApiKeyPrincipal, request: DeleteActivitiesRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId, documentId, targetEntityId, activityIds } = request;
    if (documentId === undefined && targetEntityId === undefined && activityIds === undefined) {
      throw ActivityErrors.deleteNeedsSelection();
    }
    const deleted = await this.transactions.run((manager) =>
      this.log.delete(manager, apiKeyId, organizationId, { documentId, targetEntityId, activityIds, mutableOnly: true }),
    );
    const results: ItemResults = Object.fromEntries(deleted.map((id) => [id, ok(id, ActivityMessages.deleted)]));
    for (const id of activityIds ?? []) results[id] ??= failed(id, ActivityMessages.deleteFailed);
    return results;
  }
}
