import type { Activity } from '../activity/activity-store.js';
import type { StoredEditor } from '../crdt/crdt-store.js';
import { CRDT_EVENTS } from '../common/event-catalogue.js';

/** The user who acted: at least a `userId`, and whatever else the caller sent of them. */
export type ActionUser = { userId: string } & Record<string, unknown>;

/** An event of contract 6.2, as the outbox keeps it until every destination has it. */
export interface OutboxEvent {
  /** The event type: the activity's `actionType`, or `crdt.update_data`. */
  type: string;
  /** The feature it comes from: the activity's `featureType`, or `crdt`. */
  source: string;
  /**
   * What makes two writes the same event: an activity is one event however often a caller
   * re-adds it (idempotent retries keep their `webhook-id`); `null` for CRDT writes, each an event.
   */
  key: string | null;
  organizationId: string;
  documentId: string;
  actionUser: ActionUser | null;
  /** The record the event is about: the activity, or the editor's CRDT record. */
  data: Record<string, unknown>;
}

export function activityEvent(activity: Activity): OutboxEvent {
  const { organizationId, documentId } = activity.metadata;
  return {
    type: activity.actionType,
    source: activity.featureType,
    key: `activity:${organizationId}:${activity.id}`,
    organizationId,
    documentId,
    actionUser: activity.actionUser,
    data: activity as unknown as Record<string, unknown>,
  };
}

/**
 * A CRDT write: the editor's record as `crdt/get` answers it, with where it lives. Its view is
 * parsed from the stored JSON text only here, when some destination wants the event.
 */
export function crdtEvent(apiKeyId: string, editor: StoredEditor): OutboxEvent {
  const { organizationId, documentId } = editor;
  return {
    type: CRDT_EVENTS[0],
    source: 'crdt',
    key: null,
    organizationId,
    documentId,
    actionUser: editor.lastUpdatedBy === null ? null : { userId: editor.lastUpdatedBy },
    data: {
      id: editor.editorId,
      type: editor.type,
      contentKey: editor.contentKey,
      data: JSON.parse(editor.dataJson) as unknown,
      lastUpdate: new Date(editor.lastUpdate).toISOString(),
      lastUpdatedBy: editor.lastUpdatedBy,
      sessionId: null,
      metadata: { apiKey: apiKeyId, documentId, organizationId },
    },
  };
}
