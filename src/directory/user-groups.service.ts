import { Injectable } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Conditions, Sql, type Parameters } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, type ItemResults } from '../common/batch.js';
import { DirectoryMessages } from './directory.errors.js';
import type { AddGroupUsersRequest, AddUserGroupsRequest, DeleteGroupUsersRequest } from './dto/user-group.dto.js';
import { UserGroupMemberEntity } from './entities/user-group-member.entity.js';
import { UserGroupEntity } from './entities/user-group.entity.js';
import { Memberships } from './memberships.js';
import { OrganizationStore } from './organization-store.js';
import { DirectoryErrors } from './directory.errors.js';

export const GroupMessages = {
  groupAdded: 'Organization user group added.',
  userAdded: 'User added to organization user group.',
  notOrganizationUser: 'User is not an organization user.',
  userRemoved: 'User removed from organization user group.',
  notMember: 'User is not in the organization user group.',
} as const;

/** Per-user result of a group membership change (rest-interface part 4). */
export interface GroupMemberResult {
  success: boolean;
  organizationUserGroupId: string;
  message: string;
}

/** A user's membership of one group. */
export interface GroupMembership {
  groupId: string;
  createdAt: number;
}

/**
 * Organization user groups and their members (contract part 4), and the owner of their tables,
 * `user_group` and `user_group_member`: users operations and user-data erasure reach members
 * through the methods here. Each statement picks its tool: the entity for the groups operations'
 * writes (upserts with `orIgnore`/`orUpdate`, finds with row locks), plain SQL for the keyset page,
 * the erasure's filtered delete and the members subquery users get embeds.
 */
@Injectable()
export class UserGroupsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly organizations: OrganizationStore,
    private readonly memberships: Memberships,
    private readonly sql: Sql,
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

  /** Adds or renames groups; in a missing organization every item fails. */
  async addGroups(principal: ApiKeyPrincipal, request: AddUserGroupsRequest): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    return this.transactions.run(async (manager) => {
      if (request.createOrganization === true) await this.organizations.ensure(manager, apiKeyId, [organizationId]);
      if (!(await this.organizations.exists(manager, apiKeyId, organizationId))) {
        return Object.fromEntries(request.organizationUserGroups.map((g) => [g.groupId, failed(g.groupId, DirectoryMessages.organizationMissing)]));
      }
      const now = Date.now();
      const current = new Map(
        (
          await manager.find(UserGroupEntity, {
            where: { apiKeyId, organizationId, id: In(request.organizationUserGroups.map((g) => g.groupId)) },
            ...this.transactions.rowLock,
          })
        ).map((g) => [g.id, g]),
      );
      await manager
        .createQueryBuilder()
        .insert()
        .into(UserGroupEntity)
        .values(
          request.organizationUserGroups.map((group) => ({
            apiKeyId,
            organizationId,
            id: group.groupId,
            name: group.groupName ?? current.get(group.groupId)?.name ?? null,
            createdAt: current.get(group.groupId)?.createdAt ?? now,
            lastUpdated: now,
          })),
        )
        .orUpdate(['name', 'last_updated'], ['api_key_id', 'organization_id', 'id'])
        .execute();
      return Object.fromEntries(request.organizationUserGroups.map((g) => [g.groupId, ok(g.groupId, GroupMessages.groupAdded)]));
    });
  }

  /** Adds organization users to a group (created when missing); others fail as items. */
  async addUsers(principal: ApiKeyPrincipal, request: AddGroupUsersRequest): Promise<Record<string, GroupMemberResult>> {
    const { apiKeyId } = principal;
    const { organizationId, organizationUserGroupId: groupId } = request;
    const result = (success: boolean, message: string): GroupMemberResult => ({ success, organizationUserGroupId: groupId, message });
    return this.transactions.run(async (manager) => {
      if (!(await this.organizations.exists(manager, apiKeyId, organizationId))) {
        return Object.fromEntries(request.userIds.map((id) => [id, result(false, DirectoryMessages.organizationMissing)]));
      }
      const now = Date.now();
      await manager
        .createQueryBuilder()
        .insert()
        .into(UserGroupEntity)
        .values({ apiKeyId, organizationId, id: groupId, name: null, createdAt: now, lastUpdated: now })
        .orIgnore()
        .execute();
      // Organization users: those holding a live membership of the organization.
      const members = await this.memberships.membersAmong(manager, apiKeyId, organizationId, { type: 'organization', id: organizationId }, request.userIds);
      if (members.size) {
        await manager
          .createQueryBuilder()
          .insert()
          .into(UserGroupMemberEntity)
          .values([...members].map((userId) => ({ apiKeyId, organizationId, groupId, userId, createdAt: now })))
          .orIgnore()
          .execute();
      }
      return Object.fromEntries(
        request.userIds.map((id) => [id, members.has(id) ? result(true, GroupMessages.userAdded) : result(false, GroupMessages.notOrganizationUser)]),
      );
    });
  }

  /** Removes the named members, or all of them with `deleteAll`. */
  async deleteUsers(principal: ApiKeyPrincipal, request: DeleteGroupUsersRequest): Promise<Record<string, GroupMemberResult>> {
    if ((request.userIds === undefined) === (request.deleteAll !== true)) {
      throw DirectoryErrors.groupDeleteNeedsSelection();
    }
    const { apiKeyId } = principal;
    const { organizationId, organizationUserGroupId: groupId } = request;
    return this.transactions.run(async (manager) => {
      const where = { apiKeyId, organizationId, groupId, ...(request.userIds ? { userId: In(request.userIds) } : {}) };
      const present = new Set((await manager.find(UserGroupMemberEntity, { where, select: { userId: true } })).map((m) => m.userId));
      if (present.size) await manager.delete(UserGroupMemberEntity, { apiKeyId, organizationId, groupId, userId: In([...present]) });
      const ids = request.userIds ?? [...present];
      return Object.fromEntries(
        ids.map((id) => [
          id,
          { success: present.has(id), organizationUserGroupId: groupId, message: present.has(id) ? GroupMessages.userRemoved : GroupMessages.notMember },
        ]),
      );
    });
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
