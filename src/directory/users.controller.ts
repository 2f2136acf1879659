import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import { withResultFields, type ResultFields } from '../common/envelope.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import type { ItemResults } from '../common/batch.js';
import { AddGroupUsersRequest, AddUserGroupsRequest, DeleteGroupUsersRequest } from './dto/user-group.dto.js';
import { AddUsersV1Request, AddUsersV2Request, DeleteUsersRequest, GetUsersV1Request, GetUsersV2Request, UpdateUsersRequest } from './dto/user.dto.js';
import { UserGroupsService, type GroupMemberResult } from './user-groups.service.js';
import { UsersService, type UserRecord } from './users.service.js';
import { UsersResult } from './dto/user.response.js';
import { GroupMemberOutcomesResult } from './dto/user-group.response.js';
import { ItemResultsResult } from '../common/openapi-responses.js';

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

  @Operation('/v1/users/add', { auth: 'apiKey', message: USERS_PROCESSED, response: ItemResultsResult, errors: ['NOT_FOUND'] })
  addV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddUsersV1Request): Promise<ItemResults> {
    return this.users.add(caller, data);
  }

  @Operation('/v2/users/add', { auth: 'apiKey', message: USERS_PROCESSED, response: ItemResultsResult, errors: ['NOT_FOUND'] })
  addV2(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddUsersV2Request): Promise<ItemResults> {
    return this.users.add(caller, data);
  }

  @Operation('/v1/users/get', { auth: 'apiKey', message: USERS_RETRIEVED, response: UsersResult })
  getV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetUsersV1Request): Promise<UserRecord[]> {
    return this.users.getEveryPage(caller, data);
  }

  @Operation('/v2/users/get', { auth: 'apiKey', message: USERS_RETRIEVED, response: UsersResult })
  getV2(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetUsersV2Request): Promise<ResultFields> {
    return this.users.get(caller, data).then((page) => withResultFields(page.users, { nextPageToken: page.nextPageToken }));
  }

  @Operation('/v2/users/update', { aliases: ['/v1/users/update'], auth: 'apiKey', message: USERS_PROCESSED, response: ItemResultsResult })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateUsersRequest): Promise<ItemResults> {
    return this.users.update(caller, data);
  }

  @Operation('/v2/users/delete', { aliases: ['/v1/users/delete'], auth: 'apiKey', message: 'User(s) deleted successfully.', response: ItemResultsResult })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteUsersRequest): Promise<ItemResults> {
    return this.users.delete(caller, data);
  }

  @Operation('/v2/organizations/usergroups/add', {
    aliases: ['/v1/organizations/usergroups/add'],
    auth: 'apiKey',
    message: 'Organization User Groups added successfully.',
    response: ItemResultsResult,
  })
  addGroups(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddUserGroupsRequest): Promise<ItemResults> {
    return this.groups.addGroups(caller, data);
  }

  @Operation('/v1/organizations/usergroups/users/add', { auth: 'apiKey', message: GROUP_USERS_ADDED, response: GroupMemberOutcomesResult })
  addGroupUsersV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddGroupUsersRequest): Promise<Record<string, GroupMemberResult>> {
    return this.groups.addUsers(caller, data);
  }

  @Operation('/v2/organizations/usergroups/users/add', { auth: 'apiKey', message: GROUP_USERS_ADDED, response: GroupMemberOutcomesResult })
  addGroupUsersV2(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddGroupUsersRequest): Promise<Record<string, GroupMemberResult>> {
    return this.groups.addUsers(caller, data);
  }

  @Operation('/v2/organizations/usergroups/users/delete', {
    aliases: ['/v1/organizations/usergroups/users/delete'],
    auth: 'apiKey',
    message: 'Deleted users from group successfully.',
    response: GroupMemberOutcomesResult,
  })
  deleteGroupUsers(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteGroupUsersRequest): Promise<Record<string, GroupMemberResult>> {
    return this.groups.deleteUsers(caller, data);
  }
}
