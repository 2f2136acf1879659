import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { ApiError } from '../common/errors.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, type ItemResults } from '../common/batch.js';
import { DirectoryMessages } from './directory.errors.js';
import type { AddGroupUsersRequest, AddUserGroupsRequest, DeleteGroupUsersRequest } from './dto/user-group.dto.js';
import { UserGroupMemberEntity } from './entities/user-group-member.entity.js';
import { UserGroupEntity } from './entities/user-group.entity.js';
import { OrganizationsService } from './organizations.service.js';
import { UsersService } from './users.service.js';

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

/** Organization user groups and their members (contract part 4). */
@Injectable()
export class UserGroupsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly organizations: OrganizationsService,
    private readonly users: UsersService,
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
        (await manager.find(UserGroupEntity, { where: { apiKeyId, organizationId, id: In(request.organizationUserGroups.map((g) => g.groupId)) }, ...this.transactions.rowLock })).map((g) => [g.id, g]),
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
      await manager.createQueryBuilder().insert().into(UserGroupEntity).values({ apiKeyId, organizationId, id: groupId, name: null, createdAt: now, lastUpdated: now }).orIgnore().execute();
      const members = await this.users.usersInScope(manager, apiKeyId, organizationId, { type: 'organization', id: organizationId }, request.userIds);
      if (members.size) {
        await manager
          .createQueryBuilder()
          .insert()
          .into(UserGroupMemberEntity)
          .values([...members].map((userId) => ({ apiKeyId, organizationId, groupId, userId, createdAt: now })))
          .orIgnore()
          .execute();
      }
      return Object.fromEntries(request.userIds.map((id) => [id, members.has(id) ? result(true, GroupMessages.userAdded) : result(false, GroupMessages.notOrganizationUser)]));
    });
  }

  /** Removes the named members, or all of them with `deleteAll`. */
  async deleteUsers(principal: ApiKeyPrincipal, request: DeleteGroupUsersRequest): Promise<Record<string, GroupMemberResult>> {
    if ((request.userIds === undefined) === (request.deleteAll !== true)) {
      throw new ApiError('INVALID_ARGUMENT', 'Give either userIds or deleteAll: true.');
    }
    const { apiKeyId } = principal;
    const { organizationId, organizationUserGroupId: groupId } = request;
    return this.transactions.run(async (manager) => {
      const where = { apiKeyId, organizationId, groupId, ...(request.userIds ? { userId: In(request.userIds) } : {}) };
      const present = new Set((await manager.find(UserGroupMemberEntity, { where, select: { userId: true } })).map((m) => m.userId));
      if (present.size) await manager.delete(UserGroupMemberEntity, { apiKeyId, organizationId, groupId, userId: In([...present]) });
      const ids = request.userIds ?? [...present];
      return Object.fromEntries(
        ids.map((id) => [id, { success: present.has(id), organizationUserGroupId: groupId, message: present.has(id) ? GroupMessages.userRemoved : GroupMessages.notMember }]),
      );
    });
  }
}
