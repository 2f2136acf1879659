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
  if (activity.featureType === 'reaction' || activity.actionType.startsWith('reaction.') || activity.actionType.startsWith('comment.reaction_'))
    return 'reactions';
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
  return withoutUsersIn(activity, users, ['actionUser']);
}

/** `withoutUsers` for any record, leaving the top-level fields named in `kept` alone. */
export function withoutUsersIn<T extends object>(record: T, users: ReadonlySet<string>, kept: readonly (keyof T & string)[] = []): T | undefined {
  let changed = false;
  const isUser = (value: unknown): boolean => {
    const entry = asObject(value);
    return entry !== undefined && (users.has(entry.userId as string) || users.has(asObject(entry.contact)?.userId as string));
  };
  const scrub = (value: unknown, key: string | undefined, top: boolean): unknown => {
    if (Array.isArray(value)) {
      const keptItems = value.filter((item) => !(isUser(item) || (key === 'involvedUserIds' && users.has(item as string))));
      if (keptItems.length !== value.length) changed = true;
      return keptItems.map((item) => scrub(item, undefined, false));
    }
    const entries = asObject(value);
    if (!entries) return value;
    return Object.fromEntries(
      Object.entries(entries).map(([name, entry]) => {
        if (top && (kept as readonly string[]).includes(name)) return [name, entry];
        if (isUser(entry)) {
          changed = true;
          return [name, null];
        }
        return [name, scrub(entry, name, false)];
      }),
    );
  };
  const scrubbed = scrub(record, undefined, true) as T;
  return changed ? scrubbed : undefined;
}

/**
 * A comment thread (annotation and comments) without `users`, as `withoutUsersIn` takes them out,
 * plus the annotation's fields that hold a bare user id (who resolved it or last changed its
 * status, who a restricted thread is visible to); undefined when it names none of them.
 */
export function withoutUsersInThread<T extends { comments: object[] }>(thread: T, users: ReadonlySet<string>): T | undefined {
  const scrubbed = withoutUsersIn(thread, users) ?? thread;
  const fields = scrubbed as unknown as Record<string, unknown> & { visibilityConfig?: { userIds?: string[] } };
  let changed = scrubbed !== thread;
  const result: Record<string, unknown> = { ...fields };
  for (const field of ['resolvedByUserId', 'statusUpdatedByUserId']) {
    if (typeof fields[field] === 'string' && users.has(fields[field] as string)) {
      result[field] = null;
      changed = true;
    }
  }
  const visibleTo = fields.visibilityConfig?.userIds;
  if (visibleTo?.some((userId) => users.has(userId))) {
    result.visibilityConfig = { ...fields.visibilityConfig, userIds: visibleTo.filter((userId) => !users.has(userId)) };
    changed = true;
  }
  return changed ? (result as unknown as T) : undefined;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
