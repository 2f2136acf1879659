import type { Activity } from '../activity/activity-log.js';
import { involvedUsers } from '../events/involved-users.js';
import { activityEvent } from '../events/outbox-event.js';

/** The lists of `users/data/get` an activity the user made or is named in goes to. */
export type ActivityList = 'comments' | 'reactions' | 'recordings' | 'otherActivities';

/**
 * Upstream's categories, by what the record is about: reactions (`reaction.*`, and reactions on
 * comments, `comment.reaction_*`), recordings (the recorder feature), the other comment
 * activities, and everything else (CRDT, custom, huddle) in a list of this service's own, so
 * every record naming the user is somewhere in the export.
 */
export function activityListOf(activity: Activity): ActivityList {
  if (activity.featureType === 'reaction' || activity.actionType.startsWith('reaction.') || activity.actionType.startsWith('comment.reaction_')) return 'reactions';
  if (activity.featureType === 'recorder') return 'recordings';
  if (activity.featureType === 'comment') return 'comments';
  return 'otherActivities';
}

/** Whether the user would be notified of it as involved (contract 6.4 "MINE": mentioned, assigned, thread author, `involvedUserIds`). */
export function notifies(activity: Activity, userId: string): boolean {
  return involvedUsers(activityEvent(activity)).has(userId);
}

/** The user made the record, or it names them anywhere (what `withoutUsers` would take out). */
export function namesUser(activity: Activity, userId: string): boolean {
  return activity.actionUser.userId === userId || withoutUsers(activity, new Set([userId])) !== undefined;
}

/**
 * The record with every trace of `users` taken out of what others wrote, or undefined when it
 * names none of them. Erasure keeps other people's records (they are theirs) but not the erased
 * users in them:
 * - an item of a list that is such a user (an object with their `userId`, or one whose
 *   `contact` is, as in `taggedUserContacts`), or their id in `involvedUserIds`, is removed;
 * - any other value that is such a user (`from`, `assignedTo`, a template's user object,
 *   `changes.*.from/to`) becomes null.
 * The top-level `actionUser` is left alone: records made by the erased users are deleted whole.
 */
export function withoutUsers(activity: Activity, users: ReadonlySet<string>): Activity | undefined {
  let changed = false;
  const isUser = (value: unknown): boolean => {
    const record = asObject(value);
    return record !== undefined && (users.has(record.userId as string) || users.has(asObject(record.contact)?.userId as string));
  };
  const scrub = (value: unknown, key: string | undefined): unknown => {
    if (Array.isArray(value)) {
      const kept = value.filter((item) => !(isUser(item) || (key === 'involvedUserIds' && users.has(item as string))));
      if (kept.length !== value.length) changed = true;
      return kept.map((item) => scrub(item, undefined));
    }
    const record = asObject(value);
    if (!record) return value;
    return Object.fromEntries(
      Object.entries(record).map(([name, entry]) => {
        if (isUser(entry)) {
          changed = true;
          return [name, null];
        }
        return [name, scrub(entry, name)];
      }),
    );
  };
  const { actionUser: _actor, ...rest } = activity;
  const scrubbed = scrub(rest, undefined) as Omit<Activity, 'actionUser'>;
  // Spread over the record itself, so its fields keep their order.
  return changed ? { ...activity, ...scrubbed } : undefined;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
