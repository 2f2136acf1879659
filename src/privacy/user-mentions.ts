import type { Activity } from '../activity/activity-store.js';

/** The lists of `users/data/get` an activity record the user made or is named in goes to. */
export type ActivityList = 'recordings' | 'activities';

/**
 * Recorder records are upstream's `recordings` (the recorder feature keeps no other data here);
 * every other record (comment, reaction, CRDT, custom, huddle) goes to `activities`, a list of
 * this service's own, so each record naming the user is in the export once.
 */
export function activityListOf(activity: Activity): ActivityList {
  return activity.featureType === 'recorder' ? 'recordings' : 'activities';
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
 *   `contact` is, as in `taggedUserContacts`), or their id in a list of ids (`userIds`,
 *   `involvedUserIds`, any `…UserIds`, as a restricted thread's `visibilityConfig.userIds`), is
 *   removed;
 * - any other value that is such a user (`from`, `assignedTo`, a template's user object,
 *   `changes.*.from/to`), or their bare id in a field of one (`resolvedByUserId`, any
 *   `…UserId`), becomes null;
 * - a mention of them in text (`{{userId}}`, which tags them) reads `ERASED_MENTION`; text that
 *   merely contains their id is the writer's and stays.
 * The top-level `actionUser` is left alone: records made by the erased users are deleted whole.
 */
export function withoutUsers(activity: Activity, users: ReadonlySet<string>): Activity | undefined {
  return withoutUsersIn(activity, users, ['actionUser']);
}

/** What a mention of an erased user reads in others' text. */
export const ERASED_MENTION = '@(deleted user)';

/** `withoutUsers` for any record (activities, comments, threads, notifications), leaving the top-level fields named in `kept` alone. */
export function withoutUsersIn<T extends object>(record: T, users: ReadonlySet<string>, kept: readonly (keyof T & string)[] = []): T | undefined {
  let changed = false;
  const mention = new RegExp(`\\{\\{(${[...users].map(escapeRegExp).join('|')})\\}\\}`, 'g');
  const isUser = (value: unknown): boolean => {
    const entry = asObject(value);
    return entry !== undefined && (users.has(entry.userId as string) || users.has(asObject(entry.contact)?.userId as string));
  };
  const isIdOf = (key: string | undefined, value: unknown, suffix: 'UserId' | 'UserIds'): boolean =>
    key !== undefined && (key === suffix.charAt(0).toLowerCase() + suffix.slice(1) || key.endsWith(suffix)) && users.has(value as string);
  const scrub = (value: unknown, key: string | undefined, top: boolean): unknown => {
    if (typeof value === 'string') {
      const text = value.replace(mention, ERASED_MENTION);
      if (text !== value) changed = true;
      return text;
    }
    if (Array.isArray(value)) {
      const keptItems = value.filter((item) => !(isUser(item) || isIdOf(key, item, 'UserIds')));
      if (keptItems.length !== value.length) changed = true;
      return keptItems.map((item) => scrub(item, undefined, false));
    }
    const entries = asObject(value);
    if (!entries) return value;
    return Object.fromEntries(
      Object.entries(entries).map(([name, entry]) => {
        if (top && (kept as readonly string[]).includes(name)) return [name, entry];
        if (isUser(entry) || isIdOf(name, entry, 'UserId')) {
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
