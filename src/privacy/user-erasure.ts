import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { GrantRepository } from '../access/grant.repository.js';
import { ActivityLog, fromRow, type Activity, type ActivityRow } from '../activity/activity-log.js';
import { CrdtStore } from '../crdt/crdt-store.js';
import { Sql, type Parameters } from '../database/sql.js';
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

/** Activity rows read and scrubbed per statement, bounding memory whatever the log holds. */
const SCRUB_CHUNK = 500;

/**
 * A filter matching records whose JSON text holds one of the users' ids as a string, the cheap
 * pre-filter the database applies before the exact test in code (`namesUser`, `withoutUsers`).
 * JSON text is what the caller sent re-serialised, so an id appears exactly as
 * `JSON.stringify` writes it. `\` escapes LIKE's wildcards on both engines.
 */
export function mentionFilter(column: string, userIds: readonly string[]): { sql: string; parameters: Parameters } {
  const parameters: Parameters = {};
  const parts = userIds.map((userId, i) => {
    parameters[`mention${i}`] = `%${JSON.stringify(userId).replace(/[\\%_]/g, '\\$&')}%`;
    return `${column} LIKE :mention${i} ESCAPE '\\'`;
  });
  return { sql: `(${parts.join(' OR ')})`, parameters };
}

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
    private readonly sql: Sql,
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
    const inOrganizations = organizationIds ? ' AND organization_id IN (:...organizationIds)' : '';
    const parameters: Parameters = { apiKeyId, userIds, ...(organizationIds ? { organizationIds } : {}) };
    const organizations =
      organizationIds ??
      (await this.sql.run<{ organization_id: string }>(manager, 'SELECT DISTINCT organization_id FROM activity WHERE api_key_id = :apiKeyId AND action_user_id IN (:...userIds)', parameters)).map((row) => row.organization_id);
    for (const organizationId of organizations) await this.activities.delete(manager, apiKeyId, organizationId, { actionUserIds: userIds });

    const users = new Set(userIds);
    const mentions = mentionFilter('body', userIds);
    let after: [string, string] | undefined;
    for (;;) {
      const rows = await this.sql.lockRows<ActivityRow & { organization_id: string }>(
        manager,
        `SELECT organization_id, id, document_id, feature_type, action_type, target_entity_id, timestamp, body FROM activity
          WHERE api_key_id = :apiKeyId${inOrganizations} AND ${mentions.sql}${after ? ' AND (organization_id, id) > (:afterOrganization, :afterId)' : ''}
          ORDER BY organization_id, id LIMIT :limit`,
        { ...parameters, ...mentions.parameters, ...(after ? { afterOrganization: after[0], afterId: after[1] } : {}), limit: SCRUB_CHUNK },
      );
      const changed = rows.map((row) => withoutUsers(fromRow(apiKeyId, row.organization_id, row), users)).filter((activity): activity is Activity => activity !== undefined);
      // An update, not an add: no event is sent (contract 6.2), and judgments are rewritten.
      if (changed.length) await this.activities.write(manager, apiKeyId, changed, { added: false, fresh: false });
      if (rows.length < SCRUB_CHUNK) return;
      const last = rows[rows.length - 1]!;
      after = [last.organization_id, last.id];
    }
  }
}
