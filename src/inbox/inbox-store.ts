import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Conditions, namingFilter, Sql } from '../database/sql.js';
import { PAGE_BYTES } from '../common/paging.js';
import type { Delivered, InboxNotification } from './notifications.js';
import { chunksOf, groupBy } from '../common/collections.js';
import { DirectoryDeletes, type DeletedPlaces, type DirectoryObserver } from '../directory/directory-deletes.js';
import { DocumentMoves, type DocumentMove, type DocumentMoveObserver } from '../directory/document-moves.js';
import { moveDocumentBodies } from '../database/document-bodies.js';

/** What notifications get, update and delete select by; every field narrows (AND). */
export interface InboxFilter {
  documentId?: string;
  locationId?: string;
  /** Only notifications that went to this user. */
  userId?: string;
  notificationIds?: string[];
}

/** Keyset position of notifications get, in a user's inbox or not: (timestamp, id). */
export type InboxCursor = [timestamp: number, id: string];

/**
 * Whether a page token's cursor is an `InboxCursor`. Tokens of the inbox's former order (unread
 * first) carried `[read, timestamp, id]`; such a token is refused, not read as a position in
 * another order.
 */
export function isInboxCursor(cursor: unknown): cursor is InboxCursor {
  return Array.isArray(cursor) && cursor.length === 2 && Number.isSafeInteger(cursor[0]) && typeof cursor[1] === 'string';
}

interface NotificationRow {
  body: string;
}

/**
 * Owner of `inbox_notification` and `inbox_recipient`. Raw `Sql`: JSON bodies beside filter
 * columns, as `activity` keeps them, and the inbox page's join and row-value keyset are plain SQL.
 */
@Injectable()
export class InboxStore implements DirectoryObserver, DocumentMoveObserver, OnModuleInit {
  constructor(
    private readonly sql: Sql,
    private readonly directoryDeletes: DirectoryDeletes,
    private readonly documentMoves: DocumentMoves,
  ) {}

  onModuleInit(): void {
    this.directoryDeletes.observers.add(this);
    this.documentMoves.observers.add(this);
  }

  /**
   * Notifications about a document follow it to its new id, in the moving transaction (their
   * recipients hang on the notification's id, which does not change); the body keeps the id
   * too (reads parse it), so it is rewritten with the column.
   */
  async documentMoved(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void> {
    await moveDocumentBodies(this.sql, manager, 'inbox_notification', 'id', { apiKeyId, ...move });
  }

  /** The threads (annotation ids) holding an unread entry of `userId`'s in one organization: one statement, on the partial index of unread entries (`inbox_recipient_unread_idx`). */
  async threadsUnreadBy(apiKeyId: string, organizationId: string, userId: string): Promise<string[]> {
    const rows = await this.sql.rows<{ annotation_id: string }>(
      `SELECT DISTINCT n.annotation_id FROM inbox_recipient r
        JOIN inbox_notification n ON n.api_key_id = r.api_key_id AND n.organization_id = r.organization_id AND n.id = r.notification_id
        WHERE r.api_key_id = :apiKeyId AND r.organization_id = :organizationId AND r.user_id = :userId AND r.is_read = 0 AND n.annotation_id IS NOT NULL`,
      { apiKeyId, organizationId, userId },
    );
    return rows.map((row) => row.annotation_id);
  }

  /** Notifications about deleted documents (their recipients with them) go with them, in the deleting transaction. */
  async placesDeleted(manager: EntityManager, apiKeyId: string, organizationId: string, deleted: DeletedPlaces): Promise<void> {
    for (const documentIds of chunksOf(deleted.documentIds)) {
      await this.sql.run(
        manager,
        'DELETE FROM inbox_notification WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND document_id IN (:...documentIds)',
        { apiKeyId, organizationId, documentIds },
      );
    }
  }

  /**
   * Stores notifications and their recipients, unread. A notification whose id exists is left as
   * it is (a caller's `notificationId` makes retries idempotent); returns the ids written.
   */
  async add(manager: EntityManager, apiKeyId: string, items: { notification: InboxNotification; recipients: string[] }[]): Promise<Set<string>> {
    const written = new Set<string>();
    for (const [organizationId, group] of groupBy(items, (item) => item.notification.organizationId)) {
      const inserted = await this.sql.insertNew(
        manager,
        'inbox_notification',
        ['api_key_id', 'organization_id', 'id', 'document_id', 'location_id', 'annotation_id', 'timestamp', 'body'],
        group.map(({ notification: n }) => [apiKeyId, organizationId, n.id, n.documentId, n.locationId, n.annotationId, n.timestamp, JSON.stringify(n)]),
        ['api_key_id', 'organization_id', 'id'],
        'id',
      );
      const fresh = new Set(inserted.map(String));
      const recipients = group
        .filter((item) => fresh.has(item.notification.id))
        .flatMap(({ notification: n, recipients }) => recipients.map((userId) => [apiKeyId, organizationId, n.id, userId, 0, n.timestamp]));
      await this.sql.insert(manager, 'inbox_recipient', ['api_key_id', 'organization_id', 'notification_id', 'user_id', 'is_read', 'timestamp'], recipients);
      for (const id of fresh) written.add(id);
    }
    return written;
  }

  /**
   * One keyset page by (timestamp, id) in `order`, as upstream orders notifications (by
   * timestamp, default desc): with a user, their inbox (read and unread alike, on
   * `inbox_recipient_inbox_idx`), else the organization's (or document's) notifications; cut
   * short past `PAGE_BYTES`. Two statements.
   */
  async page(
    apiKeyId: string,
    organizationId: string,
    filter: InboxFilter,
    order: 'asc' | 'desc',
    after: InboxCursor | undefined,
    limit: number,
  ): Promise<{ items: Delivered[]; cut: boolean; cursorOf: (item: Delivered) => InboxCursor }> {
    const comparison = order === 'desc' ? '<' : '>';
    const direction = order === 'desc' ? 'DESC' : 'ASC';
    const where = this.where(apiKeyId, organizationId, filter, 'n');
    const keyset = after && { afterTimestamp: after[0], afterId: after[1] };
    let page: { rows: NotificationRow[]; cut: boolean };
    if (filter.userId !== undefined) {
      where.equal('r.user_id', filter.userId);
      if (keyset) where.add(`(r.timestamp, r.notification_id) ${comparison} (:afterTimestamp, :afterId)`, keyset);
      page = await this.sql.rowsWithinBytes<NotificationRow>({
        select: 'n.body',
        from: `inbox_recipient r
          JOIN inbox_notification n ON n.api_key_id = r.api_key_id AND n.organization_id = r.organization_id AND n.id = r.notification_id
          WHERE ${where}`,
        orderBy: `r.timestamp ${direction}, r.notification_id ${direction}`,
        size: 'LENGTH(n.body)',
        parameters: where.parameters,
        limit,
        maxBytes: PAGE_BYTES,
      });
    } else {
      if (keyset) where.add(`(n.timestamp, n.id) ${comparison} (:afterTimestamp, :afterId)`, keyset);
      page = await this.sql.rowsWithinBytes<NotificationRow>({
        select: 'n.body',
        from: `inbox_notification n WHERE ${where}`,
        orderBy: `n.timestamp ${direction}, n.id ${direction}`,
        size: 'LENGTH(n.body)',
        parameters: where.parameters,
        limit,
        maxBytes: PAGE_BYTES,
      });
    }
    const { rows, cut } = page;
    const notifications = rows.map((row) => JSON.parse(row.body) as InboxNotification);
    const recipients = await this.recipientsOf(
      apiKeyId,
      organizationId,
      notifications.map((n) => n.id),
    );
    const items = notifications.map((notification) => ({ notification, recipients: recipients.get(notification.id) ?? [] }));
    const cursorOf = (item: Delivered): InboxCursor => [item.notification.timestamp, item.notification.id];
    return { items, cut, cursorOf };
  }

  /** The notifications matching `filter`, locked until the transaction ends, with their recipients. */
  async lock(manager: EntityManager, apiKeyId: string, organizationId: string, filter: InboxFilter): Promise<Delivered[]> {
    const where = this.where(apiKeyId, organizationId, filter, 'inbox_notification');
    if (filter.userId !== undefined) {
      where.add(
        'id IN (SELECT r.notification_id FROM inbox_recipient r WHERE r.api_key_id = :recipientKey AND r.organization_id = :recipientOrganization AND r.user_id = :recipientUser)',
        { recipientKey: apiKeyId, recipientOrganization: organizationId, recipientUser: filter.userId },
      );
    }
    const rows = await this.sql.lockRows<NotificationRow>(manager, `SELECT body FROM inbox_notification WHERE ${where}`, where.parameters);
    const notifications = rows.map((row) => JSON.parse(row.body) as InboxNotification);
    const recipients = await this.recipientsOf(
      apiKeyId,
      organizationId,
      notifications.map((n) => n.id),
    );
    return notifications.map((notification) => ({ notification, recipients: recipients.get(notification.id) ?? [] }));
  }

  /** Rewrites notifications' fields (their ids, places and recipients stay). */
  async rewrite(manager: EntityManager, apiKeyId: string, notifications: InboxNotification[]): Promise<void> {
    await this.sql.updateRows(
      manager,
      'inbox_notification',
      {
        match: [
          { name: 'api_key_id', type: 'varchar' },
          { name: 'organization_id', type: 'varchar' },
          { name: 'id', type: 'varchar' },
        ],
        set: [{ name: 'body', type: 'text' }],
      },
      notifications.map((n) => [apiKeyId, n.organizationId, n.id, JSON.stringify(n)]),
    );
  }

  /** Marks a notification read for those of `userIds` it went to. */
  async markRead(manager: EntityManager, apiKeyId: string, organizationId: string, notificationId: string, userIds: string[]): Promise<void> {
    if (!userIds.length) return;
    await this.sql.run(
      manager,
      'UPDATE inbox_recipient SET is_read = 1 WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND notification_id = :notificationId AND user_id IN (:...userIds)',
      { apiKeyId, organizationId, notificationId, userIds },
    );
  }

  /** Deletes notifications (their recipients go with them). */
  async delete(manager: EntityManager, apiKeyId: string, organizationId: string, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.sql.run(manager, 'DELETE FROM inbox_notification WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id IN (:...ids)', {
      apiKeyId,
      organizationId,
      ids,
    });
  }

  /** Takes notifications out of one user's inbox; a notification left with no recipient is deleted. */
  async removeFromInbox(manager: EntityManager, apiKeyId: string, organizationId: string, userId: string, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.sql.run(
      manager,
      'DELETE FROM inbox_recipient WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND user_id = :userId AND notification_id IN (:...ids)',
      { apiKeyId, organizationId, userId, ids },
    );
    await this.deleteUnaddressed(manager, apiKeyId, organizationId, ids);
  }

  /** Empties the users' inboxes (user-data erasure): a notification left with no recipient is deleted. */
  async forgetRecipients(manager: EntityManager, apiKeyId: string, userIds: string[], organizationIds: string[] | null): Promise<void> {
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .among('organization_id', organizationIds ?? undefined)
      .among('user_id', userIds);
    const removed = await this.sql.run<{ organization_id: string; notification_id: string }>(
      manager,
      `DELETE FROM inbox_recipient WHERE ${where} RETURNING organization_id, notification_id`,
      where.parameters,
    );
    for (const [organizationId, rows] of groupBy(removed, (row) => row.organization_id)) {
      const ids = rows.map((row) => row.notification_id);
      for (const chunk of chunksOf(ids)) await this.deleteUnaddressed(manager, apiKeyId, organizationId, chunk);
    }
  }

  /**
   * Up to `limit` notifications of the key (in the given organizations; null: all) whose text
   * holds one of the users' ids, in (organization, id) order after `after`, locked until the unit
   * of work ends (erasure deletes or scrubs them). A pre-filter: the caller tests each exactly.
   */
  async lockNaming(
    manager: EntityManager,
    apiKeyId: string,
    userIds: string[],
    organizationIds: string[] | null,
    after: [organizationId: string, id: string] | undefined,
    limit: number,
  ): Promise<InboxNotification[]> {
    const text = namingFilter('body', userIds);
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .among('organization_id', organizationIds ?? undefined)
      .add(text.sql, text.parameters);
    if (after) where.add('(organization_id, id) > (:afterOrganization, :afterId)', { afterOrganization: after[0], afterId: after[1] });
    const rows = await this.sql.lockRows<NotificationRow>(
      manager,
      `SELECT body FROM inbox_notification WHERE ${where} ORDER BY organization_id, id LIMIT :limit`,
      { ...where.parameters, limit },
    );
    return rows.map((row) => JSON.parse(row.body) as InboxNotification);
  }

  /**
   * Up to `limit` notifications of one organization in the user's inbox or whose text holds their
   * id (a pre-filter), in id order after `after`, with their recipients (the user-data export).
   */
  async naming(apiKeyId: string, organizationId: string, userId: string, after: string | undefined, limit: number): Promise<Delivered[]> {
    const text = namingFilter('body', [userId]);
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .equal('organization_id', organizationId)
      .add(
        `(${text.sql} OR id IN (SELECT r.notification_id FROM inbox_recipient r WHERE r.api_key_id = inbox_notification.api_key_id AND r.organization_id = inbox_notification.organization_id AND r.user_id = :recipient))`,
        { ...text.parameters, recipient: userId },
      );
    if (after !== undefined) where.add('id > :afterId', { afterId: after });
    const rows = await this.sql.rows<NotificationRow>(`SELECT body FROM inbox_notification WHERE ${where} ORDER BY id LIMIT :limit`, {
      ...where.parameters,
      limit,
    });
    const notifications = rows.map((row) => JSON.parse(row.body) as InboxNotification);
    const recipients = await this.recipientsOf(
      apiKeyId,
      organizationId,
      notifications.map((n) => n.id),
    );
    return notifications.map((notification) => ({ notification, recipients: recipients.get(notification.id) ?? [] }));
  }

  /** Deletes those of the notifications no one has in their inbox any more. */
  private async deleteUnaddressed(manager: EntityManager, apiKeyId: string, organizationId: string, ids: string[]): Promise<void> {
    await this.sql.run(
      manager,
      `DELETE FROM inbox_notification WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id IN (:...ids)
        AND NOT EXISTS (SELECT 1 FROM inbox_recipient r WHERE r.api_key_id = inbox_notification.api_key_id AND r.organization_id = inbox_notification.organization_id AND r.notification_id = inbox_notification.id)`,
      { apiKeyId, organizationId, ids },
    );
  }

  private where(apiKeyId: string, organizationId: string, filter: InboxFilter, table: string): Conditions {
    return new Conditions()
      .equal(`${table}.api_key_id`, apiKeyId)
      .equal(`${table}.organization_id`, organizationId)
      .equal(`${table}.document_id`, filter.documentId)
      .equal(`${table}.location_id`, filter.locationId)
      .among(`${table}.id`, filter.notificationIds);
  }

  /** Recipients of the notifications, by notification (inside a unit of work, as it sees them: `Sql.rows` reads on its connection). */
  private async recipientsOf(apiKeyId: string, organizationId: string, ids: string[]): Promise<Map<string, { userId: string; read: boolean }[]>> {
    if (!ids.length) return new Map();
    const sql =
      'SELECT notification_id, user_id, is_read FROM inbox_recipient WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND notification_id IN (:...ids) ORDER BY notification_id, user_id';
    const parameters = { apiKeyId, organizationId, ids };
    type Row = { notification_id: string; user_id: string; is_read: number | string };
    const rows = await this.sql.rows<Row>(sql, parameters);
    return groupBy(
      rows,
      (row) => row.notification_id,
      (row) => ({ userId: row.user_id, read: Number(row.is_read) === 1 }),
    );
  }
}
