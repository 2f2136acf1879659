import { Injectable } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import { Conditions, Sql, type Parameters } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { UserGroupMemberEntity } from './entities/user-group-member.entity.js';
import { UserGroupEntity } from './entities/user-group.entity.js';

/** A user's membership of one group. */
export interface GroupMembership {
  groupId: string;
  createdAt: number;
}

/** A group as stored, without its key and organization (the caller's scope). */
export type UserGroup = Pick<UserGroupEntity, 'id' | 'name' | 'createdAt' | 'lastUpdated'>;

/**
 * Owner of `user_group` and `user_group_member`: the groups operations, users get and delete,
 * and user-data export and erasure reach them through the methods here. Each statement picks its
 * tool: the entity for upserts (`orIgnore`/`orUpdate`) and finds with row locks, plain SQL for
 * the keyset page, the erasure's filtered delete and the members subquery users get embeds.
 */
@Injectable()
export class UserGroupStore {
  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
  ) {}

  /**
   * The user's group memberships in the organization, for the user-data export: by group id,
   * after `after` (a group id), `limit` at most. One query.
   */
  async groupsOf(apiKeyId: string, organizationId: string, userId: string, after: string | undefined, limit: number): Promise<GroupMembership[]> {
    // Plain SQL: a keyset page (`Sql.rowsAfter`), numbers converted here.
    const rows = await this.sql.rowsAfter<{ group_id: string; created_at: number | string }>(
      'SELECT group_id, created_at FROM user_group_member WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND user_id = :userId',
      ['group_id'],
      { apiKeyId, organizationId, userId },
      after === undefined ? undefined : [after],
      limit,
    );
    return rows.map((row) => ({ groupId: row.group_id, createdAt: Number(row.created_at) }));
  }

  /** The groups of `ids` that exist, locked until the transaction ends. */
  async lockGroups(manager: EntityManager, apiKeyId: string, organizationId: string, ids: string[]): Promise<Map<string, UserGroup>> {
    const rows = await manager.find(UserGroupEntity, { where: { apiKeyId, organizationId, id: In(ids) }, ...this.transactions.rowLock });
    return new Map(rows.map((g) => [g.id, g]));
  }

  /** Writes whole groups: new ones added, existing ones renamed. */
  async putGroups(manager: EntityManager, apiKeyId: string, organizationId: string, groups: UserGroup[]): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(UserGroupEntity)
      .values(groups.map((group) => ({ apiKeyId, organizationId, ...group })))
      .orUpdate(['name', 'last_updated'], ['api_key_id', 'organization_id', 'id'])
      .execute();
  }

  /** Creates the group, unnamed, unless it exists. */
  async ensureGroup(manager: EntityManager, apiKeyId: string, organizationId: string, id: string, at: number): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(UserGroupEntity)
      .values({ apiKeyId, organizationId, id, name: null, createdAt: at, lastUpdated: at })
      .orIgnore()
      .execute();
  }

  /** Adds the users to the group (those already in it stay as they are). */
  async addMembers(manager: EntityManager, apiKeyId: string, organizationId: string, groupId: string, userIds: readonly string[], at: number): Promise<void> {
    if (!userIds.length) return;
    await manager
      .createQueryBuilder()
      .insert()
      .into(UserGroupMemberEntity)
      .values(userIds.map((userId) => ({ apiKeyId, organizationId, groupId, userId, createdAt: at })))
      .orIgnore()
      .execute();
  }

  /** The group's members among `userIds` (all of them without). */
  async membersOf(manager: EntityManager, apiKeyId: string, organizationId: string, groupId: string, userIds?: readonly string[]): Promise<Set<string>> {
    const where = { apiKeyId, organizationId, groupId, ...(userIds ? { userId: In([...userIds]) } : {}) };
    return new Set((await manager.find(UserGroupMemberEntity, { where, select: { userId: true } })).map((m) => m.userId));
  }

  /** Takes the users out of one group. */
  async deleteMembers(manager: EntityManager, apiKeyId: string, organizationId: string, groupId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length) await manager.delete(UserGroupMemberEntity, { apiKeyId, organizationId, groupId, userId: In([...userIds]) });
  }

  /** Takes the users out of every group of the organization (users delete from the organization), in the caller's unit of work. Entity: a delete by key. */
  async removeMembers(manager: EntityManager, apiKeyId: string, organizationId: string, userIds: readonly string[]): Promise<void> {
    await manager.delete(UserGroupMemberEntity, { apiKeyId, organizationId, userId: In([...userIds]) });
  }

  /**
   * Takes the users out of every group in the given organizations (null: all of the key's), in
   * the erasing unit of work (user-data erasure). Plain SQL: one statement whatever the numbers,
   * with an optional filter.
   */
  async forgetMembers(manager: EntityManager, apiKeyId: string, userIds: readonly string[], organizationIds: readonly string[] | null): Promise<void> {
    const members = new Conditions()
      .equal('api_key_id', apiKeyId)
      .among('user_id', userIds)
      .among('organization_id', organizationIds ?? undefined);
    await this.sql.run(manager, `DELETE FROM user_group_member WHERE ${members}`, members.parameters);
  }
}

/**
 * Users of any of the organization's groups, as a subquery (one `user_id` column) with its
 * parameters, which users get embeds in its members page (`Memberships.memberPage`) so the page
 * stays one statement.
 */
export function groupMembersQuery(apiKeyId: string, organizationId: string, groupIds: readonly string[]): { sql: string; parameters: Parameters } {
  return {
    sql: 'SELECT m.user_id FROM user_group_member m WHERE m.api_key_id = :memberApiKeyId AND m.organization_id = :memberOrganizationId AND m.group_id IN (:...memberGroupIds)',
    // No group id is '', so an empty list matches nothing (`IN ()` is not SQL).
    parameters: { memberApiKeyId: apiKeyId, memberOrganizationId: organizationId, memberGroupIds: groupIds.length ? [...groupIds] : [''] },
  };
}
