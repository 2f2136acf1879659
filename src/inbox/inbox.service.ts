import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Activity } from '../activity/activity-store.js';
import { AccessService } from '../access/access.service.js';
import { failed, ok, type ItemResults } from '../common/batch.js';
import { newSortableId } from '../common/ids.js';
import { everyPage, PageTokens, PAGE_SIZE } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { documentKey } from '../directory/document-store.js';
import { DocumentsService } from '../directory/documents.service.js';
import { NotificationPreferencesService } from '../delivery/notification-preferences.service.js';
import { InboxAudience, type InboxEntry, type InboxEntryWriter } from '../delivery/inbox-audience.js';
import type {
  AddNotificationRequest,
  DeleteNotificationsRequest,
  GetNotificationsRequest,
  GetNotificationsV1Request,
  UpdateNotificationsRequest,
} from './dto/inbox.dto.js';
import { InboxStore, isInboxCursor } from './inbox-store.js';
import { notificationJson, UPDATABLE_NOTIFICATION_FIELDS, type InboxNotification } from './notifications.js';
import { InboxErrors } from './inbox.errors.js';

/** Messages of upstream's notifications operations. */
export const InboxMessages = {
  added: 'Notification added successfully.',
  updated: 'Notification updated.',
  updateFailed: 'Failed to update notification.',
  deleted: 'Notification deleted.',
  deleteFailed: 'Failed to delete notification.',
} as const;

const OPERATION_GET = 'notifications/get';

/**
 * In-app notifications: upstream's `notifications` add/get/update/delete, and the entries comment
 * events make for the users whose `inbox` preference selects them (contract 6.4: ALL, or MINE when
 * the event involves them; never the acting user).
 */
@Injectable()
export class InboxService implements InboxEntryWriter, OnModuleInit {
  constructor(
    private readonly store: InboxStore,
    private readonly transactions: Transactions,
    private readonly pageTokens: PageTokens,
    private readonly documents: DocumentsService,
    private readonly access: AccessService,
    private readonly preferences: NotificationPreferencesService,
    private readonly audience: InboxAudience,
  ) {}

  onModuleInit(): void {
    this.audience.writer = this;
  }

  /**
   * Inbox entries of events (comment events the worker's inbox audience settles), written in the
   * settling unit of work: one notification per event, to the users worked out for it. An event
   * whose document is gone by now gets none; the documents that remain are held until the unit
   * ends, so a delete cannot leave entries behind.
   */
  async write(manager: EntityManager, apiKeyId: string, entries: readonly InboxEntry[]): Promise<void> {
    const present = await this.documents.holdExisting(
      manager,
      apiKeyId,
      entries.map(({ event }) => ({ organizationId: event.organizationId, documentId: event.documentId })),
    );
    const items = entries
      .filter(({ event }) => present.has(documentKey(event.organizationId, event.documentId)))
      .map(({ event, recipients }) => ({ notification: eventNotification(event.data as unknown as Activity), recipients: [...recipients] }));
    if (items.length) await this.store.add(manager, apiKeyId, items);
  }

  /**
   * Adds one notification. Recipients: `notifyUsers`, and with `notifyAll` (the default) every
   * user who may see the document but the acting one; each kept when their inbox preference is
   * ALL, or MINE and they were named in `notifyUsers`; with `verifyUserPermissions` only users
   * who may see the document.
   */
  async add(principal: ApiKeyPrincipal, request: AddNotificationRequest): Promise<{ success: true; id: string; message: string }> {
    const { apiKeyId } = principal;
    const { organizationId, documentId } = request;
    if (request.isNotificationResolverUsed !== true) {
      for (const field of ['displayHeadlineMessageTemplate', 'displayBodyMessage'] as const) {
        if (request[field] === undefined) throw InboxErrors.templateRequired(field);
      }
    }
    const notification: InboxNotification = {
      id: request.notificationId ?? newSortableId('ntf_'),
      organizationId,
      documentId,
      locationId: null,
      annotationId: null,
      notificationSource: request.notificationSource ?? 'custom',
      ...(request.notificationSourceData !== undefined ? { notificationSourceData: request.notificationSourceData } : {}),
      actionUser: request.actionUser,
      ...pick(request, ['displayHeadlineMessageTemplate', 'displayHeadlineMessageTemplateData', 'displayBodyMessage', 'isNotificationResolverUsed', 'context']),
      timestamp: Date.now(),
    };
    await this.transactions.run(async (manager) => {
      await this.documents.requirePlace(manager, apiKeyId, request);
      const named = [...new Set(request.notifyUsers.map((user) => user.userId))];
      const needsAudience = request.notifyAll !== false || request.verifyUserPermissions === true;
      const audience = needsAudience ? (await this.access.documentAudience(apiKeyId, organizationId, documentId)).map((entry) => entry.userId) : [];
      const candidates = new Set([...named, ...(request.notifyAll !== false ? audience.filter((userId) => userId !== request.actionUser.userId) : [])]);
      if (request.verifyUserPermissions === true) for (const userId of candidates) if (!audience.includes(userId)) candidates.delete(userId);
      const preferences = await this.preferences.effective(apiKeyId, organizationId, documentId, [...candidates]);
      const recipients = [...candidates].filter((userId) => {
        const inbox = preferences.get(userId)?.inbox ?? 'ALL';
        return inbox === 'ALL' || (inbox === 'MINE' && named.includes(userId));
      });
      await this.store.add(manager, apiKeyId, [{ notification, recipients }]);
    });
    return { success: true, id: notification.id, message: InboxMessages.added };
  }

  /**
   * One page: a user's inbox when `userId` is given, else the document's notifications; by
   * timestamp in `order` (newest first by default), read and unread alike, as upstream orders
   * them. A token of the former inbox order (unread first) is `Invalid page token.`
   */
  async get(principal: ApiKeyPrincipal, request: GetNotificationsRequest): Promise<{ data: Record<string, unknown>[]; pageToken?: string }> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    if (request.documentId === undefined && request.userId === undefined) throw InboxErrors.documentOrUserRequired();
    const order = request.order ?? 'desc';
    const pageSize = request.pageSize ?? PAGE_SIZE.default;
    const filter = { documentId: request.documentId, locationId: request.locationId, userId: request.userId, notificationIds: request.notificationIds };
    const filters = { organizationId, ...filter, order };
    const after = request.pageToken ? this.pageTokens.decode(apiKeyId, OPERATION_GET, filters, request.pageToken, isInboxCursor) : undefined;
    const { items, cut, cursorOf } = await this.store.page(apiKeyId, organizationId, filter, order, after, pageSize + 1);
    const page = this.pageTokens.page(items, pageSize, apiKeyId, OPERATION_GET, filters, cursorOf, cut);
    return { data: page.items.map((item) => notificationJson(apiKeyId, item)), pageToken: page.next };
  }

  /** v1 get: every page, newest first (v1 has no paging). */
  async getEveryPage(principal: ApiKeyPrincipal, request: GetNotificationsV1Request): Promise<Record<string, unknown>[]> {
    return everyPage((pageToken) => this.get(principal, { ...request, pageToken }).then((page) => ({ items: page.data, next: page.pageToken })));
  }

  /** Changes the updatable fields and read state of the named notifications among those the filters select. */
  async update(principal: ApiKeyPrincipal, request: UpdateNotificationsRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    return this.transactions.run(async (manager) => {
      const found = new Map(
        (
          await this.store.lock(manager, apiKeyId, organizationId, {
            documentId: request.documentId,
            locationId: request.locationId,
            userId: request.userId,
            notificationIds: request.notifications.map((n) => n.id),
          })
        ).map((d) => [d.notification.id, d]),
      );
      const changed: InboxNotification[] = [];
      for (const { id, readByUserIds, ...fields } of request.notifications) {
        const current = found.get(id);
        if (!current) continue;
        const updates = pick(fields, UPDATABLE_NOTIFICATION_FIELDS);
        if (Object.keys(updates).length) changed.push({ ...current.notification, ...updates });
        await this.store.markRead(manager, apiKeyId, organizationId, id, readByUserIds ?? []);
      }
      await this.store.rewrite(manager, apiKeyId, changed);
      return Object.fromEntries(
        request.notifications.map(({ id }) => [id, found.has(id) ? ok(id, InboxMessages.updated) : failed(id, InboxMessages.updateFailed)]),
      );
    });
  }

  /**
   * Deletes the notifications the filters select. With `userId` they leave that user's inbox only
   * (a notification left with no recipient is deleted); results name each one, and each requested
   * id that matched nothing fails.
   */
  async delete(principal: ApiKeyPrincipal, request: DeleteNotificationsRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId, documentId, locationId, userId, notificationIds } = request;
    if ([documentId, locationId, userId, notificationIds].every((value) => value === undefined)) {
      throw InboxErrors.deleteNeedsSelection();
    }
    const ids = await this.transactions.run(async (manager) => {
      const matched = (await this.store.lock(manager, apiKeyId, organizationId, { documentId, locationId, userId, notificationIds })).map(
        (d) => d.notification.id,
      );
      if (userId !== undefined) await this.store.removeFromInbox(manager, apiKeyId, organizationId, userId, matched);
      else await this.store.delete(manager, apiKeyId, organizationId, matched);
      return matched;
    });
    const results: ItemResults = Object.fromEntries(ids.map((id) => [id, ok(id, InboxMessages.deleted)]));
    for (const id of notificationIds ?? []) results[id] ??= failed(id, InboxMessages.deleteFailed);
    return results;
  }
}

/** The inbox entry of a comment event: headline from the activity's display message, body from the comment's text. */
function eventNotification(activity: Activity): InboxNotification {
  const entity = asRecord(activity.entityData);
  const target = asRecord(activity.entityTargetData);
  const location = asRecord((target ?? entity)?.location);
  // A comment event's entityData is the comment; a thread event's is the thread, whose newest comment is the text.
  const comments = Array.isArray(entity?.comments) ? (entity.comments as unknown[]) : [];
  const text = entity?.commentText ?? asRecord(comments[comments.length - 1])?.commentText;
  return {
    id: newSortableId('ntf_'),
    organizationId: activity.metadata.organizationId,
    documentId: activity.metadata.documentId,
    locationId: typeof location?.id === 'string' ? location.id : null,
    annotationId: activity.targetEntityId ?? null,
    notificationSource: activity.featureType,
    notificationSourceData: {
      actionType: activity.actionType,
      annotationId: activity.targetEntityId,
      ...(activity.targetSubEntityId !== undefined ? { commentId: Number(activity.targetSubEntityId) } : {}),
    },
    actionUser: activity.actionUser,
    displayHeadlineMessageTemplate: activity.displayMessageTemplate ?? activity.actionType,
    ...(activity.displayMessageTemplateData ? { displayHeadlineMessageTemplateData: activity.displayMessageTemplateData } : {}),
    ...(typeof text === 'string' ? { displayBodyMessage: text } : {}),
    timestamp: activity.timestamp,
  };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The fields of `source` named in `keys` that it has (not undefined). */
function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) picked[key] = source[key];
  return picked;
}
