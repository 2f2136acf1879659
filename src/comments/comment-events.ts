import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ActivityStore, type Activity } from '../activity/activity-store.js';
import { newSortableId } from '../common/ids.js';
import type { WireUser } from '../common/validation/checks.js';
import { EventRecorder } from '../delivery/event-recorder.js';
import type { Annotation, Comment, Thread } from './threads.js';

/** What a comment write asks for (upstream's flags, both off by default). */
export interface Triggers {
  /** Keep the event in the activity log. */
  activities: boolean;
  /** Inbox entries, e-mail and webhooks, as the key's configs and users' preferences select. */
  notification: boolean;
}

/** How each event reads in an activity's display message. */
const VERBS: Record<string, string> = {
  'comment_annotation.add': 'started a thread',
  'comment_annotation.delete': 'deleted a thread',
  'comment_annotation.status_change': 'changed the status',
  'comment_annotation.priority_change': 'changed the priority',
  'comment_annotation.assign': 'assigned a thread',
  'comment_annotation.suggestion_accept': 'accepted a suggestion',
  'comment_annotation.suggestion_reject': 'rejected a suggestion',
  'comment.add': 'commented',
  'comment.update': 'edited a comment',
  'comment.delete': 'deleted a comment',
  'comment.reaction_add': 'reacted to a comment',
  'comment.reaction_delete': 'removed a reaction',
};

/**
 * Comment writes as activities (contract 6.2's comment events), so the activity log, webhooks,
 * e-mail and inbox follow from the pipeline that exists: the log and the outbox inside the
 * writing transaction; who gets mail and inbox entries is worked out by the delivery worker.
 */
@Injectable()
export class CommentEvents {
  constructor(
    private readonly log: ActivityStore,
    private readonly recorder: EventRecorder,
  ) {}

  /**
   * Records the events as `triggers` ask: in the log those the key's activity config keeps
   * (quietly: the log's observers make no deliveries of them); when notifying, every event in the
   * outbox, for the key's webhooks and mail and for the inbox audience, which the worker turns
   * into inbox entries (working out who gets one took most of a notifying add's time).
   */
  async publish(manager: EntityManager, apiKeyId: string, activities: Activity[], triggers: Triggers): Promise<void> {
    if (!activities.length || !asksAnything(triggers)) return;
    if (triggers.activities) await this.log.write(manager, apiKeyId, activities, { added: true, fresh: true, quiet: true, featureEvents: true });
    // Their ids were just made (`eventOn`): events never recorded before.
    if (triggers.notification) await this.recorder.recordActivities(manager, apiKeyId, activities, { inbox: true, fresh: true });
  }

  /**
   * Events each with triggers of their own (a batch's comments flag themselves): one `publish`
   * per distinct pair of flags. An event is built (`activity`) only when its triggers ask for
   * something: without one (upstream's default) there is nothing to build it for.
   */
  async publishEach(manager: EntityManager, apiKeyId: string, items: { activity: () => Activity; triggers: Triggers }[]): Promise<void> {
    // Built in the order sent, so their ids (and the log's order) follow the batch.
    const built = items.flatMap(({ activity, triggers }) => (asksAnything(triggers) ? [{ activity: activity(), triggers }] : []));
    for (const activities of [true, false]) {
      for (const notification of [true, false]) {
        const group = built
          .filter((item) => item.triggers.activities === activities && item.triggers.notification === notification)
          .map((item) => item.activity);
        await this.publish(manager, apiKeyId, group, { activities, notification });
      }
    }
  }
}

/** The triggers a comment sent (both off unless set). */
export function triggersOf(sent: { triggerActivities?: boolean; triggerNotification?: boolean }): Triggers {
  return { activities: sent.triggerActivities === true, notification: sent.triggerNotification === true };
}

/** Whether the triggers ask for anything (without one, no event is built). */
export function asksAnything(triggers: Triggers): boolean {
  return triggers.activities || triggers.notification;
}

/** The activity of an event on a whole thread: its `entityData` is the thread with its comments. */
export function threadActivity(apiKeyId: string, actionType: string, actor: WireUser, thread: Thread, timestamp: number): Activity {
  return eventOn(apiKeyId, actionType, actor, thread, timestamp, { entityData: thread });
}

/**
 * The activity of an event on one comment: its `entityData` is the comment (with `annotationId`,
 * and as `involvedUserIds` the thread's author and `commenterIds`, those who commented in it
 * besides, but not the actor), its `entityTargetData` the annotation alone, so only that
 * comment's mentions count as involving someone. The thread's other comments are not read for it.
 */
export function commentActivity(
  apiKeyId: string,
  actionType: string,
  actor: WireUser,
  annotation: Annotation,
  commenterIds: string[],
  timestamp: number,
  comment: Comment,
): Activity {
  const { comments: _comments, ...annotationAlone } = annotation as Annotation & { comments?: unknown };
  const involvedUserIds = [...new Set([annotation.from.userId, ...commenterIds])].filter((userId) => userId !== actor.userId);
  return eventOn(apiKeyId, actionType, actor, annotation, timestamp, {
    targetSubEntityId: String(comment.commentId),
    entityData: { ...comment, annotationId: annotation.annotationId, involvedUserIds },
    entityTargetData: annotationAlone,
  });
}

/** An event on a thread: ids, the actor, what it is about (`about`), the display message and the place. */
function eventOn(
  apiKeyId: string,
  actionType: string,
  actor: WireUser,
  annotation: Annotation,
  timestamp: number,
  about: Pick<Activity, 'targetSubEntityId' | 'entityData' | 'entityTargetData'>,
): Activity {
  return {
    id: newSortableId('act_'),
    featureType: 'comment',
    actionType,
    targetEntityId: annotation.annotationId,
    ...about,
    actionUser: actor,
    displayMessageTemplate: `{{actionUser}} ${VERBS[actionType] ?? actionType}`,
    displayMessageTemplateData: { actionUser: typeof actor.name === 'string' ? actor.name : actor.userId },
    metadata: { apiKey: apiKeyId, organizationId: annotation.organizationId, documentId: annotation.documentId },
    timestamp,
  };
}
