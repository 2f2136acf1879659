import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { GrantRepository } from '../access/grant.repository.js';
import { ActivityLog, type Activity } from '../activity/activity-log.js';
import { CrdtStore } from '../crdt/crdt-store.js';
import { UsersService } from '../directory/users.service.js';
import { NotificationPreferencesService } from '../events/notification-preferences.service.js';
import { JudgmentLog } from '../memory/judgment-log.js';
import { withoutUsers } from './user-mentions.js';

/**
 * One task per module holding data about users, in the order a job runs them. Each runs in one
 * transaction that also records it done, and each may run again after a crash (deleting what is
 * gone, or scrubbing what is scrubbed, changes nothing), so a resumed job finishes cleanly.
 */
export const ERASE_TASKS = ['directory', 'access', 'notifications', 'crdt', 'activity', 'memory'] as const;
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
 * grants and access context through `GrantRepository`, preferences through
 * `NotificationPreferencesService`, editor attribution through `CrdtStore`, activity changes
 * through `ActivityLog` (so judgments derived from them follow in the same transaction) and
 * judgments left behind through `JudgmentLog`.
 */
@Injectable()
export class UserErasure {
  constructor(
    private readonly activities: ActivityLog,
    private readonly grants: GrantRepository,
    private readonly users: UsersService,
    private readonly preferences: NotificationPreferencesService,
    private readonly crdt: CrdtStore,
    private readonly judgments: JudgmentLog,
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
    }
  }

  /** Deletes the users' own records, then takes them out of everyone else's. */
  private async eraseActivities(manager: EntityManager, scope: EraseScope): Promise<void> {
    const { apiKeyId, userIds, organizationIds } = scope;
    await this.activities.deleteMadeBy(manager, apiKeyId, userIds, organizationIds);
    const users = new Set(userIds);
    let after: [string, string] | undefined;
    for (;;) {
      const naming = await this.activities.lockNaming(manager, apiKeyId, userIds, organizationIds, after, SCRUB_CHUNK);
      const changed = naming.map((activity) => withoutUsers(activity, users)).filter((activity): activity is Activity => activity !== undefined);
      // An update, not an add: no event is sent (contract 6.2), and judgments are rewritten.
      if (changed.length) await this.activities.write(manager, apiKeyId, changed, { added: false, fresh: false });
      if (naming.length < SCRUB_CHUNK) return;
      const last = naming[naming.length - 1]!;
      after = [last.metadata.organizationId, last.id];
    }
  }
}
