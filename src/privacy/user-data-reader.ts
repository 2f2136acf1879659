import { Injectable } from '@nestjs/common';
import { GrantStore, type UserGrantCursor } from '../access/grant-store.js';
import { ActivityStore, type Activity } from '../activity/activity-store.js';
import { AttachmentsService } from '../attachments/attachments.service.js';
import { CommentStore } from '../comments/comment-store.js';
import { mentionsOf, reactionJson, threadJson, type Thread } from '../comments/threads.js';
import { PageTokens, PAGE_BYTES } from '../common/paging.js';
import { CrdtStore } from '../crdt/crdt-store.js';
import { UserGroupStore } from '../directory/user-group-store.js';
import { DirectoryUserStore } from '../directory/directory-user-store.js';
import { NotificationPreferenceStore, preferenceCursor, type PreferenceCursor } from '../delivery/notification-preference-store.js';
import { InboxStore } from '../inbox/inbox-store.js';
import { notificationJson, type Delivered } from '../inbox/notifications.js';
import { JudgmentStore } from '../memory/judgment-store.js';
import type { JudgmentFields } from '../memory/decisions.js';
import { activityListOf, namesUser, withoutUsersIn, type ActivityList } from './user-mentions.js';

/** Items per list and page (upstream's page of the export). */
export const USER_DATA_PAGE = 100;
/** Activity records the scan reads per statement. */
const SCAN_CHUNK = 500;
const OPERATION = 'users/data/get';

/** The user's profile: the named fields, then their metadata spread beside them (as users add kept it). */
export type UserProfile = {
  userId: string;
  name: string | null;
  email: string | null;
  initial: string | null;
  createdAt: number;
  lastUpdated: number;
} & Record<string, unknown>;

/** A membership or permission: one grant on the organization, a folder or a document. */
export interface GrantRecord {
  resourceType: string;
  resourceId: string;
  accessRole: string;
  /** Unix seconds, for a temporary grant; else null. */
  expiresAt: number | null;
  createdAt: number;
  lastUpdated: number;
}

export interface PreferenceRecord {
  /** null: the organization-level default. */
  documentId: string | null;
  inbox: string | null;
  email: string | null;
  chat: string | null;
  updatedAt: number;
}

export interface EditorAttribution {
  documentId: string;
  editorId: string;
  type: string;
  lastUpdate: string;
}

/**
 * `data` of `users/data/get`: every list is present, empty when nothing (more) is held. Upstream's
 * four lists first (`comments`, `reactions`, `recordings`, `notifications`), then this service's
 * own; each thing is in one list.
 */
export interface UserData {
  /** Comment threads the user started, wrote in, is mentioned or assigned in, or reacted in (as annotations get answers them). */
  comments: Record<string, unknown>[];
  /** The reactions the user added to comments, each with where it is. */
  reactions: Record<string, unknown>[];
  /** Recorder activity records the user made or is named in. */
  recordings: Activity[];
  /** In-app notifications in the user's inbox, or that they made or that name them; each shows the user's own delivery only. */
  notifications: Record<string, unknown>[];
  /** Every other activity record the user made or is named in (comment, reaction, CRDT, custom, huddle). */
  activities: Activity[];
  user: UserProfile | null;
  accessFields: string[];
  grants: GrantRecord[];
  userGroups: { organizationUserGroupId: string; createdAt: number }[];
  notificationPreferences: PreferenceRecord[];
  crdtEditors: EditorAttribution[];
  judgments: JudgmentFields[];
  /** The files attached to comments the user wrote, each with a fresh download link. */
  attachments: Record<string, unknown>[];
}

type Cursor = [timestamp: number, id: string];
/**
 * Where a list read through a pre-filter in id order continues: after the item `after` (null: from
 * the start), skipping the first `skip` entries of the item `within` (a thread whose reactions did
 * not all fit the page). Every item read moves `after`, taken or not.
 */
type ScanCursor = [after: string | null, within: string, skip: number];
/** Where each list that has more continues; `activities` and `recordings` share one scan of the activity log, so one position. */
interface Cursors {
  activities?: Cursor;
  grants?: UserGrantCursor;
  userGroups?: string;
  notificationPreferences?: string;
  crdtEditors?: [string, string];
  judgments?: string;
  comments?: ScanCursor;
  reactions?: ScanCursor;
  notifications?: ScanCursor;
  attachments?: number;
}
type TableList = Exclude<keyof Cursors, 'activities' | 'attachments' | ScannedList>;
/** Lists read through a pre-filter and tested here, by id. */
type ScannedList = 'comments' | 'reactions' | 'notifications';

/**
 * Reads everything held about one user in one organization of a key, for `users/data/get`.
 * Every table comes through its owner, each read scoped by the API key and the organization:
 * grants and access context through `GrantStore`, the profile and group memberships through
 * directory's `DirectoryUserStore` and `UserGroupStore`, preferences through
 * `NotificationPreferenceStore`, editors through `CrdtStore`, judgments through `JudgmentStore`,
 * threads through `CommentStore`, notifications through `InboxStore`, activities through
 * `ActivityStore` (sorted into the export's lists here, see `activityLists`).
 */
@Injectable()
export class UserDataReader {
  constructor(
    private readonly pageTokens: PageTokens,
    private readonly activityLog: ActivityStore,
    private readonly grants: GrantStore,
    private readonly users: DirectoryUserStore,
    private readonly userGroups: UserGroupStore,
    private readonly preferences: NotificationPreferenceStore,
    private readonly crdt: CrdtStore,
    private readonly judgmentLog: JudgmentStore,
    private readonly comments: CommentStore,
    private readonly inbox: InboxStore,
    private readonly attachments: AttachmentsService,
  ) {}

  /**
   * One page: up to 100 items per list. The token continues every list that had more; lists
   * that were done answer empty on the following pages. The profile and access fields, single
   * values, come on every page.
   */
  async page(
    apiKeyId: string,
    request: { organizationId: string; userId: string; pageToken?: string },
    baseUrl: string,
  ): Promise<{ data: UserData; nextPageToken?: string }> {
    const { organizationId, userId } = request;
    const filters = { organizationId, userId };
    const resume = request.pageToken ? this.pageTokens.decode<Cursors>(apiKeyId, OPERATION, filters, request.pageToken) : undefined;
    const wanted = (list: keyof Cursors) => resume === undefined || resume[list] !== undefined;
    const next: Cursors = {};

    const activities = wanted('activities') ? await this.activityLists(apiKeyId, organizationId, userId, resume?.activities) : undefined;
    if (activities?.next) next.activities = activities.next;
    const table = async <R, T>(
      list: TableList,
      read: (after: Cursors[TableList] | undefined) => Promise<R[]>,
      cursorOf: (row: R) => Cursors[TableList],
      view: (row: R) => T,
    ): Promise<T[]> => {
      if (!wanted(list)) return [];
      const rows = await read(resume?.[list]);
      if (rows.length > USER_DATA_PAGE) (next as Record<string, unknown>)[list] = cursorOf(rows[USER_DATA_PAGE - 1]!);
      return rows.slice(0, USER_DATA_PAGE).map(view);
    };

    const data: UserData = {
      comments: [],
      reactions: [],
      recordings: activities?.lists.recordings ?? [],
      notifications: [],
      activities: activities?.lists.activities ?? [],
      user: await this.profile(apiKeyId, userId),
      accessFields: (await this.grants.accessFields(apiKeyId, organizationId, [userId])).get(userId) ?? [],
      grants: await table(
        'grants',
        (after) => this.grants.grantsOfUser(apiKeyId, organizationId, userId, after as UserGrantCursor | undefined, USER_DATA_PAGE + 1),
        (grant): UserGrantCursor => [grant.resourceType, grant.resourceId, grant.temporary ? 1 : 0],
        (grant): GrantRecord => ({
          resourceType: grant.resourceType,
          resourceId: grant.resourceId,
          accessRole: grant.accessRole,
          expiresAt: grant.expiresAt,
          createdAt: grant.createdAt,
          lastUpdated: grant.lastUpdated,
        }),
      ),
      userGroups: await table(
        'userGroups',
        (after) => this.userGroups.groupsOf(apiKeyId, organizationId, userId, after as string | undefined, USER_DATA_PAGE + 1),
        (membership) => membership.groupId,
        (membership) => ({ organizationUserGroupId: membership.groupId, createdAt: membership.createdAt }),
      ),
      notificationPreferences: await table(
        'notificationPreferences',
        (after) => this.preferences.preferencesOf(apiKeyId, organizationId, userId, after as PreferenceCursor | undefined, USER_DATA_PAGE + 1),
        preferenceCursor,
        (preference): PreferenceRecord => ({
          documentId: preference.documentId,
          inbox: preference.inbox,
          email: preference.email,
          chat: preference.chat,
          updatedAt: preference.updatedAt,
        }),
      ),
      crdtEditors: await table(
        'crdtEditors',
        (after) => this.crdt.editorsLastWrittenBy(apiKeyId, organizationId, userId, after as [string, string] | undefined, USER_DATA_PAGE + 1),
        (editor) => [editor.documentId, editor.editorId],
        // The content is the document's, not the user's: the export names the editors they last wrote.
        (editor): EditorAttribution => ({
          documentId: editor.documentId,
          editorId: editor.editorId,
          type: editor.type,
          lastUpdate: new Date(editor.lastUpdate).toISOString(),
        }),
      ),
      judgments: await table(
        'judgments',
        (after) => this.judgmentLog.judgmentsBy(apiKeyId, organizationId, userId, after as string | undefined, USER_DATA_PAGE + 1),
        (judgment) => judgment.id,
        (judgment): JudgmentFields => judgment,
      ),
      attachments: [],
    };
    const scanned = async <T>(
      list: ScannedList,
      read: (after: string | undefined, limit: number) => Promise<T[]>,
      idOf: (item: T) => string,
      entriesOf: (item: T) => Record<string, unknown>[],
    ): Promise<Record<string, unknown>[]> => {
      if (!wanted(list)) return [];
      const found = await scan(read, idOf, entriesOf, resume?.[list]);
      if (found.next !== undefined) next[list] = found.next;
      return found.items;
    };
    const user = new Set([userId]);
    const threads = (after: string | undefined, limit: number) => this.comments.naming(apiKeyId, organizationId, userId, after, limit);
    const threadId = (thread: Thread) => thread.annotationId;
    data.comments = await scanned('comments', threads, threadId, (thread) =>
      withoutUsersIn(thread, user) !== undefined || thread.comments.some((comment) => mentionsOf(comment).includes(userId))
        ? [threadJson(apiKeyId, thread)]
        : [],
    );
    // A scan of its own, so a page holds at most 100 reactions even when one thread has more of hers.
    data.reactions = await scanned('reactions', threads, threadId, (thread) => reactionsOf(thread, userId));
    data.notifications = await scanned(
      'notifications',
      (after, limit) => this.inbox.naming(apiKeyId, organizationId, userId, after, limit),
      (delivered: Delivered) => delivered.notification.id,
      ({ notification, recipients }) =>
        recipients.some((r) => r.userId === userId) || withoutUsersIn(notification, user) !== undefined
          ? [notificationJson(apiKeyId, { notification, recipients: recipients.filter((r) => r.userId === userId) })]
          : [],
    );
    if (wanted('attachments')) {
      const files = await this.attachments.writtenBy(apiKeyId, { organizationId, userId, after: resume?.attachments, limit: USER_DATA_PAGE }, baseUrl);
      data.attachments = files.links as unknown as Record<string, unknown>[];
      if (files.next !== undefined) next.attachments = files.next;
    }
    const more = Object.keys(next).length > 0;
    return { data, nextPageToken: more ? this.pageTokens.encode(apiKeyId, OPERATION, filters, next) : undefined };
  }

  /**
   * `recordings` and `activities`, from one scan in (timestamp, id) order over the records the
   * user made or that name them, until a list holds a page (or the page its size bound, as
   * activities get has): then the position of the last record taken continues both.
   */
  private async activityLists(
    apiKeyId: string,
    organizationId: string,
    userId: string,
    after: Cursor | undefined,
  ): Promise<{ lists: Record<ActivityList, Activity[]>; next?: Cursor }> {
    const lists: Record<ActivityList, Activity[]> = { recordings: [], activities: [] };
    let position = after;
    let taken: Cursor | undefined;
    let bytes = 0;
    let full = false;
    for (;;) {
      const chunk = await this.activityLog.madeByOrNaming(apiKeyId, organizationId, userId, position, SCAN_CHUNK);
      for (const { activity, size } of chunk) {
        // The log's filter is a pre-filter: an id inside some text is no mention.
        if (!namesUser(activity, userId)) continue;
        // One more record exists: the next page starts after the last one taken.
        if (full) return { lists, next: taken };
        const list = lists[activityListOf(activity)];
        list.push(activity);
        taken = [activity.timestamp, activity.id];
        bytes += size;
        full = list.length >= USER_DATA_PAGE || bytes >= PAGE_BYTES;
      }
      if (chunk.length < SCAN_CHUNK) return { lists };
      const last = chunk[chunk.length - 1]!.activity;
      position = [last.timestamp, last.id];
    }
  }

  private async profile(apiKeyId: string, userId: string): Promise<UserProfile | null> {
    const details = await this.users.profileOf(apiKeyId, userId);
    if (!details) return null;
    // Named fields win over metadata keys of the same name, as users get answers them.
    return {
      ...details.metadata,
      userId,
      name: details.name,
      email: details.email,
      initial: details.initial,
      createdAt: details.createdAt,
      lastUpdated: details.lastUpdated,
    };
  }
}

/**
 * One page of a list read through a pre-filter in id order: the entries `entriesOf` finds in each
 * item (none for an item that is not the user's; a thread's reactions: any number), until the page
 * holds `USER_DATA_PAGE` of them or `PAGE_BYTES`, and where the next page starts when one more
 * entry exists: after the last item read before the one that entry is in, skipping that item's
 * entries this page took.
 */
async function scan<T>(
  read: (after: string | undefined, limit: number) => Promise<T[]>,
  idOf: (item: T) => string,
  entriesOf: (item: T) => Record<string, unknown>[],
  cursor: ScanCursor | undefined,
): Promise<{ items: Record<string, unknown>[]; next?: ScanCursor }> {
  const items: Record<string, unknown>[] = [];
  let bytes = 0;
  let previous = cursor?.[0] ?? undefined;
  let position = previous;
  for (;;) {
    const chunk = await read(position, SCAN_CHUNK);
    for (const item of chunk) {
      const id = idOf(item);
      const skip = cursor !== undefined && cursor[1] === id ? cursor[2] : 0;
      const entries = entriesOf(item);
      for (let index = skip; index < entries.length; index++) {
        if (items.length >= USER_DATA_PAGE || bytes >= PAGE_BYTES) return { items, next: [previous ?? null, id, index] };
        items.push(entries[index]!);
        bytes += JSON.stringify(entries[index]).length;
      }
      previous = id;
    }
    if (chunk.length < SCAN_CHUNK) return { items };
    position = idOf(chunk[chunk.length - 1]!);
  }
}

/** The user's reactions in a thread, each with the comment it is on (upstream's `reactionAnnotations` item, placed). */
function reactionsOf(thread: Thread, userId: string): Record<string, unknown>[] {
  return thread.comments.flatMap((comment) =>
    (comment.reactions ?? [])
      .filter((reaction) => reaction.userId === userId)
      .map((reaction) => ({
        organizationId: thread.organizationId,
        documentId: thread.documentId,
        commentAnnotationId: thread.annotationId,
        commentId: comment.commentId,
        ...reactionJson(reaction),
      })),
  );
}
