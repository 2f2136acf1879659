import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import type { ItemResults } from '../common/batch.js';
import { AddGroupUsersRequest, AddUserGroupsRequest, DeleteGroupUsersRequest } from './dto/user-group.dto.js';
import { AddUsersV1Request, AddUsersV2Request, DeleteUsersRequest, GetUsersV1Request, GetUsersV2Request, UpdateUsersRequest } from './dto/user.dto.js';
import { UserGroupsService, type GroupMemberResult } from './user-groups.service.js';
import { UsersService } from './users.service.js';
import { UsersResult, type UserView } from './dto/user.response.js';
import { GroupMemberOutcomesResult } from './dto/user-group.response.js';
import { ItemResultsResult } from '../common/openapi-responses.js';
import { DirectoryErrors } from './directory.errors.js';

const USERS_PROCESSED = 'User(s) processed successfully.';
const USERS_RETRIEVED = 'User(s) retrieved successfully.';
const GROUP_USERS_ADDED = 'Added organization users to group successfully.';

/** Users of organizations, folders and documents, and organization user groups (contract part 4). */
@ApiTags('users')
@Controller()
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly groups: UserGroupsService,
  ) {}

  @Operation('/v1/users/add', {
    summary: 'Adds users to an organization, folder or document, or updates the ones there (v1: no access roles).',
    example: { organizationId: 'org-acme', users: [{ userId: 'user-erin', name: 'Erin Walsh', email: 'erin@acme.example' }] },
    auth: 'apiKey',
    message: USERS_PROCESSED,
    response: ItemResultsResult,
    errors: [DirectoryErrors.organizationMissing(), DirectoryErrors.documentMissing()],
  })
  addV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddUsersV1Request): Promise<ItemResults> {
    return this.users.add(caller, data);
  }

  @Operation('/v2/users/add', {
    summary: 'Adds users to an organization, folder or document with their access role, or updates the ones there.',
    example: {
      organizationId: 'org-acme',
      users: [
        { userId: 'user-alice', name: 'Alice Martin', email: 'alice@acme.example', accessRole: 'editor', team: 'product' },
        { userId: 'user-bob', name: 'Bob Chen', email: 'bob@acme.example', accessRole: 'editor' },
        { userId: 'user-carol', name: 'Carol Diaz', email: 'carol@acme.example', accessRole: 'viewer' },
        { userId: 'user-dan', name: 'Dan Brooks', email: 'dan@acme.example' },
      ],
    },
    auth: 'apiKey',
    message: USERS_PROCESSED,
    response: ItemResultsResult,
    errors: [DirectoryErrors.organizationMissing(), DirectoryErrors.folderNotFound(), DirectoryErrors.documentMissing()],
  })
  addV2(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddUsersV2Request): Promise<ItemResults> {
    return this.users.add(caller, data);
  }

  @Operation('/v1/users/get', {
    summary: 'Reads the users of an organization or document, all at once (v1).',
    example: { organizationId: 'org-acme', userIds: ['user-alice', 'user-bob'] },
    auth: 'apiKey',
    message: USERS_RETRIEVED,
    response: UsersResult,
  })
  getV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetUsersV1Request): Promise<UserView[]> {
    return this.users.getEveryPage(caller, data);
  }

  @Operation('/v2/users/get', {
    summary: 'Reads the users of an organization, folder or document, a page at a time.',
    example: { organizationId: 'org-acme', userIds: ['user-alice', 'user-bob', 'user-carol'] },
    auth: 'apiKey',
    message: USERS_RETRIEVED,
    result: 'fields',
    response: UsersResult,
  })
  getV2(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetUsersV2Request): ReturnType<UsersService['get']> {
    return this.users.get(caller, data);
  }

  @Operation('/v2/users/update', {
    summary: 'Changes users already in the scope (name, e-mail, access role, metadata).',
    example: { organizationId: 'org-acme', users: [{ userId: 'user-carol', accessRole: 'editor', team: 'design' }] },
    aliases: ['/v1/users/update'],
    auth: 'apiKey',
    message: USERS_PROCESSED,
    response: ItemResultsResult,
  })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateUsersRequest): Promise<ItemResults> {
    return this.users.update(caller, data);
  }

  @Operation('/v2/users/delete', {
    summary: 'Removes users from an organization, folder or document.',
    example: { organizationId: 'org-acme', userIds: ['user-dan'] },
    aliasExamples: { '/v1/users/delete': { organizationId: 'org-acme', userIds: ['user-erin'] } },
    aliases: ['/v1/users/delete'],
    auth: 'apiKey',
    message: 'User(s) deleted successfully.',
    response: ItemResultsResult,
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteUsersRequest): Promise<ItemResults> {
    return this.users.delete(caller, data);
  }

  @Operation('/v2/organizations/usergroups/add', {
    summary: 'Adds user groups to an organization.',
    example: { organizationId: 'org-acme', organizationUserGroups: [{ groupId: 'group-design', groupName: 'Design' }] },
    aliasExamples: {
      '/v1/organizations/usergroups/add': { organizationId: 'org-acme', organizationUserGroups: [{ groupId: 'group-engineering', groupName: 'Engineering' }] },
    },

    aliases: ['/v1/organizations/usergroups/add'],
    auth: 'apiKey',
    message: 'Organization User Groups added successfully.',
    response: ItemResultsResult,
  })
  addGroups(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddUserGroupsRequest): Promise<ItemResults> {
    return this.groups.addGroups(caller, data);
  }

  @Operation('/v1/organizations/usergroups/users/add', {
    summary: 'Adds organization users to a user group (v1).',
    example: { organizationId: 'org-acme', organizationUserGroupId: 'group-engineering', userIds: ['user-bob'] },
    auth: 'apiKey',
    message: GROUP_USERS_ADDED,
    response: GroupMemberOutcomesResult,
  })
  addGroupUsersV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddGroupUsersRequest): Promise<Record<string, GroupMemberResult>> {
    return this.groups.addUsers(caller, data);
  }

  @Operation('/v2/organizations/usergroups/users/add', {
    summary: 'Adds organization users to a user group.',
    example: { organizationId: 'org-acme', organizationUserGroupId: 'group-design', userIds: ['user-alice', 'user-carol'] },
    auth: 'apiKey',
    message: GROUP_USERS_ADDED,
    response: GroupMemberOutcomesResult,
  })
  addGroupUsersV2(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddGroupUsersRequest): Promise<Record<string, GroupMemberResult>> {
    return this.groups.addUsers(caller, data);
  }

  @Operation('/v2/organizations/usergroups/users/delete', {
    summary: 'Removes users from a user group, or empties it with `deleteAll`.',
    example: { organizationId: 'org-acme', organizationUserGroupId: 'group-design', userIds: ['user-alice'] },
    aliasExamples: {
      '/v1/organizations/usergroups/users/delete': { organizationId: 'org-acme', organizationUserGroupId: 'group-engineering', deleteAll: true },
    },

    aliases: ['/v1/organizations/usergroups/users/delete'],
    auth: 'apiKey',
    message: 'Deleted users from group successfully.',
    response: GroupMemberOutcomesResult,
  })
  deleteGroupUsers(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteGroupUsersRequest): Promise<Record<string, GroupMemberResult>> {
    return this.groups.deleteUsers(caller, data);
  }
}
