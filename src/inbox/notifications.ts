import type { WireUser } from '../common/validation/checks.js';

/**
 * An in-app notification (upstream's `notifications` operations): what its recipients' inboxes
 * show. Field names are upstream's; each recipient's read state is kept beside it.
 */
export interface InboxNotification {
  id: string;
  organizationId: string;
  documentId: string | null;
  locationId: string | null;
  /** The comment thread a comment event's notification is about (`annotations count`'s unread). */
  annotationId: string | null;
  notificationSource: string;
  notificationSourceData?: Record<string, unknown>;
  actionUser: WireUser;
  displayHeadlineMessageTemplate?: string;
  displayHeadlineMessageTemplateData?: Record<string, unknown>;
  displayBodyMessage?: string;
  isNotificationResolverUsed?: boolean;
  context?: Record<string, unknown>;
  timestamp: number;
}

/** A notification with who it went to and who has read it. */
export interface Delivered {
  notification: InboxNotification;
  recipients: { userId: string; read: boolean }[];
}

/** Fields notifications update may change (upstream's list); everything else is fixed. */
export const UPDATABLE_NOTIFICATION_FIELDS = [
  'actionUser',
  'displayHeadlineMessageTemplate',
  'displayHeadlineMessageTemplateData',
  'displayBodyMessage',
  'notificationSourceData',
] as const;

/** A notification as get answers it; `apiKey` fills `metadata` as activity records carry it. */
export function notificationJson(apiKey: string, { notification, recipients }: Delivered): Record<string, unknown> {
  const { organizationId, documentId, locationId, annotationId: _annotationId, ...fields } = notification;
  const notified = Object.fromEntries(recipients.map((r) => [r.userId, true]));
  return {
    ...fields,
    metadata: { apiKey, organizationId, documentId, ...(locationId !== null ? { locationId } : {}) },
    notifyUsers: notified,
    notifyUsersByUserId: notified,
    readByUserIds: recipients.filter((r) => r.read).map((r) => r.userId),
  };
}
