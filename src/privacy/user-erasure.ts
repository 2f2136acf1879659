import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { GrantStore } from '../access/grant-store.js';
import { ActivityStore, type Activity } from '../activity/activity-store.js';
import { CommentStore } from '../comments/comment-store.js';
import type { Annotation, Comment } from '../comments/threads.js';
import { CrdtStore } from '../crdt/crdt-store.js';
import { UsersService } from '../directory/users.service.js';
import { NotificationPreferenceStore } from '../delivery/notification-preference-store.js';
import { InboxStore } from '../inbox/inbox-store.js';
import { OutboxStore } from '../delivery/outbox-store.js';
import { Clock } from '../common/clock.js';
import type { InboxNotification } from '../inbox/notifications.js';
import { AttachmentsService } from '../attachments/attachments.service.js';
import { PresenceStore } from '../live/presence-store.js';
import { JudgmentStore } from '../memory/judgment-store.js';
import { withoutUsers, withoutUsersIn } from './user-mentions.js';
import { groupBy } from '../common/collections.js';

/**
 * One task per module holding data about users, in the order a job runs them. Each runs in one
 * transaction that also records it done, and each may run again after a crash (deleting what is
 * gone, or scrubbing what is scrubbed, changes nothing), so a resumed job finishes cleanly.
 */
// `outbox` runs before `inbox`: once no inbox audience can write entries naming the users, the
// inbox task finds every entry that was written.
export const ERASE_TASKS = [
  'directory',
  'access',
  'notifications',
  'crdt',
  'activity',
  'memory',
  'comments',
  'outbox',
  'inbox',
  'presence',
  'attachments',
] as const;
export type EraseTask = (typeof ERASE_TASKS)[number];

/** Whom a job erases, under which key, and in which organizations (null: all of the key's). */
export interface EraseScope {
  apiKeyId: string;
  userIds: string[];
  organizationIds: string[] | null;
}

/** Activity records read and scrubbed per statement, bounding memory whatever the log holds. */
const SCRUB_CHUNK = 500;

/**
 * What `users/data/delete` erases, module by module, each through the table's owner and scoped
 * by the API key (and the organizations when given): the directory through `UsersService`,
 * grants and access context through `GrantStore`, preferences through
 * `NotificationPreferenceStore`, editor attribution through `CrdtStore`, activity changes
 * through `ActivityStore` (so judgments derived from them follow in the same transaction),
 * judgments left behind through `JudgmentStore`, comment threads through `CommentStore`,
 * inbox audiences not yet written through `OutboxStore`, in-app notifications through `InboxStore`, documents' presence through `PresenceStore`, and
 * the files of deleted comments, blobs included, through `AttachmentsService`.
 */
@Injectable()
export class UserErasure {
  constructor(
    private readonly activities: ActivityStore,
    private readonly grants: GrantStore,
    private readonly users: UsersService,
    private readonly preferences: NotificationPreferenceStore,
    private readonly crdt: CrdtStore,
    private readonly judgments: JudgmentStore,
    private readonly comments: CommentStore,
    private readonly inbox: InboxStore,
    private readonly presence: PresenceStore,
    private readonly attachments: AttachmentsService,
    private readonly outbox: OutboxStore,
    private readonly clock: Clock,
  ) {}

  async run(task: EraseTask, manager: EntityManager, scope: EraseScope): Promise<void> {
    const { apiKeyId, userIds, organizationIds } = scope;
    switch (task) {
      case 'directory':
        await this.users.forgetUsers(manager, apiKeyId, userIds, organizationIds);
        return;
      case 'access':
        await this.grants.removeUsers(manager, apiKeyId, userIds, organizationIds);
        return;
      case 'notifications':
        await this.preferences.forgetUsers(manager, apiKeyId, userIds, organizationIds);
        return;
      case 'crdt':
        await this.crdt.forgetWriters(manager, apiKeyId, userIds, organizationIds);
        return;
      case 'activity':
        await this.eraseActivities(manager, scope);
        return;
      case 'memory':
        // Judgments follow their activities (deleted above); this also catches any left behind.
        await this.judgments.forgetReviewers(manager, apiKeyId, userIds, organizationIds);
        return;
      case 'comments':
        await this.eraseComments(manager, scope);
        return;
      case 'outbox':
        await this.outbox.forgetInboxAudiences(manager, apiKeyId, userIds, organizationIds, this.clock.now());
        return;
      case 'inbox':
        await this.eraseInbox(manager, scope);
        return;
      case 'presence':
        await this.presence.forgetUsers(manager, apiKeyId, userIds, organizationIds);
        return;
      case 'attachments':
        // The files of the comments the comments task deleted.
        await this.attachments.eraseOrphans(manager, apiKeyId);
        return;
    }
  }

  /** Deletes the users' own records, then takes them out of everyone else's. */
  private async eraseActivities(manager: EntityManager, scope: EraseScope): Promise<void> {
    const { apiKeyId, userIds, organizationIds } = scope;
    await this.activities.deleteMadeBy(manager, apiKeyId, userIds, organizationIds);
    const users = new Set(userIds);
    await inChunks(
      (after) => this.activities.lockNaming(manager, apiKeyId, userIds, organizationIds, after, SCRUB_CHUNK),
      (last) => [last.metadata.organizationId, last.id],
      async (naming) => {
        const changed = naming.map((activity) => withoutUsers(activity, users)).filter((activity): activity is Activity => activity !== undefined);
        // An update, not an add: no event is sent (contract 6.2), and judgments are rewritten.
        if (changed.length) await this.activities.write(manager, apiKeyId, changed, { added: false, fresh: false });
      },
    );
  }

  /** Deletes the threads and comments the users wrote, then takes them out of everyone else's threads. */
  private async eraseComments(manager: EntityManager, scope: EraseScope): Promise<void> {
    const { apiKeyId, userIds, organizationIds } = scope;
    await this.comments.forgetWriters(manager, apiKeyId, userIds, organizationIds);
    const users = new Set(userIds);
    await inChunks(
      (after) => this.comments.lockNaming(manager, apiKeyId, userIds, organizationIds, after, SCRUB_CHUNK),
      (last) => [last.organizationId, last.annotationId],
      async (naming) => {
        const annotations: Annotation[] = [];
        for (const { comments, ...annotation } of naming) {
          // Each is rewritten, changed or not: rows written before annotations stopped keeping a
          // copy of their comments may hold the users' words there. Not an edit: `lastUpdated` stays.
          annotations.push(withoutUsersIn(annotation, users) ?? annotation);
          const changed = comments.map((comment) => withoutUsersIn(comment, users)).filter((comment): comment is Comment => comment !== undefined);
          await this.comments.putComments(manager, apiKeyId, annotation.organizationId, annotation.annotationId, changed, { fresh: false });
        }
        await this.comments.putAnnotations(manager, apiKeyId, annotations);
      },
    );
  }

  /** Empties the users' inboxes, deletes the notifications they made, and takes them out of the others. */
  private async eraseInbox(manager: EntityManager, scope: EraseScope): Promise<void> {
    const { apiKeyId, userIds, organizationIds } = scope;
    await this.inbox.forgetRecipients(manager, apiKeyId, userIds, organizationIds);
    const users = new Set(userIds);
    await inChunks(
      (after) => this.inbox.lockNaming(manager, apiKeyId, userIds, organizationIds, after, SCRUB_CHUNK),
      (last) => [last.organizationId, last.id],
      async (naming) => {
        const made = naming.filter((notification) => users.has(notification.actionUser.userId));
        const changed = naming
          .filter((notification) => !users.has(notification.actionUser.userId))
          .map((notification) => withoutUsersIn(notification, users, ['actionUser']))
          .filter((notification): notification is InboxNotification => notification !== undefined);
        for (const [organizationId, ids] of groupBy(
          made,
          (n) => n.organizationId,
          (n) => n.id,
        ))
          await this.inbox.delete(manager, apiKeyId, organizationId, ids);
        await this.inbox.rewrite(manager, apiKeyId, changed);
      },
    );
  }
}

/**
 * Hands `each` the records `read` returns (locked, up to `SCRUB_CHUNK`, in key order after the
 * previous chunk's last), chunk by chunk, until a chunk comes back short: memory stays bounded
 * whatever a key holds.
 */
async function inChunks<T>(
  read: (after: [string, string] | undefined) => Promise<T[]>,
  keyOf: (last: T) => [string, string],
  each: (chunk: T[]) => Promise<void>,
): Promise<void> {
  let after: [string, string] | undefined;
  for (;;) {
    const chunk = await read(after);
    await each(chunk);
    if (chunk.length < SCRUB_CHUNK) return;
    after = keyOf(chunk[chunk.length - 1]!);
  }
}
