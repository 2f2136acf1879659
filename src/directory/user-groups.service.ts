import { Injectable } from '@nestjs/common';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, type ItemResults } from '../common/batch.js';
import { DirectoryMessages } from './directory.errors.js';
import type { AddGroupUsersRequest, AddUserGroupsRequest, DeleteGroupUsersRequest } from './dto/user-group.dto.js';
import { Memberships } from './memberships.js';
import { OrganizationStore } from './organization-store.js';
import { UserGroupStore } from './user-group-store.js';
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

/**
 * The organization user groups operations (contract part 4): answers per group or user, group
 * names kept when an add leaves them out, members only among organization users.
 * `UserGroupStore` holds the rows.
 */
@Injectable()
export class UserGroupsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly organizations: OrganizationStore,
    private readonly memberships: Memberships,
    private readonly store: UserGroupStore,
  ) {}

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
      const current = await this.store.lockGroups(
        manager,
        apiKeyId,
        organizationId,
        request.organizationUserGroups.map((g) => g.groupId),
      );
      await this.store.putGroups(
        manager,
        apiKeyId,
        organizationId,
        request.organizationUserGroups.map((group) => ({
          id: group.groupId,
          name: group.groupName ?? current.get(group.groupId)?.name ?? null,
          createdAt: current.get(group.groupId)?.createdAt ?? now,
          lastUpdated: now,
        })),
      );
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
      await this.store.ensureGroup(manager, apiKeyId, organizationId, groupId, now);
      // Organization users: those holding a live membership of the organization.
      const members = await this.memberships.membersAmong(manager, apiKeyId, organizationId, { type: 'organization', id: organizationId }, request.userIds);
      await this.store.addMembers(manager, apiKeyId, organizationId, groupId, [...members], now);
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
      const present = await this.store.membersOf(manager, apiKeyId, organizationId, groupId, request.userIds);
      await this.store.deleteMembers(manager, apiKeyId, organizationId, groupId, [...present]);
      const ids = request.userIds ?? [...present];
      return Object.fromEntries(
        ids.map((id) => [
          id,
          { success: present.has(id), organizationUserGroupId: groupId, message: present.has(id) ? GroupMessages.userRemoved : GroupMessages.notMember },
        ]),
      );
    });
  }
}
