import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type EntityManager, type Repository } from 'typeorm';
import { GrantEntity, type AccessRole, type GrantResourceType } from '../access/entities/grant.entity.js';
import { ApiError } from '../common/errors.js';
import { PageTokens, PAGE_SIZE } from '../common/paging.js';
import { unixSeconds } from '../common/time.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, splitMetadata, type ItemResults } from '../common/batch.js';
import { USER_FIELDS, type GetUsersV1Request, type GetUsersV2Request, type UserInput, type UserScopeRequest } from './dto/user.dto.js';
import { DirectoryUserEntity } from './entities/directory-user.entity.js';
import { UserGroupMemberEntity } from './entities/user-group-member.entity.js';
import { DocumentsService } from './documents.service.js';
import { FoldersService } from './folders.service.js';

export const UserMessages = {
  added: 'User added.',
  updated: 'User updated.',
  removed: 'User removed.',
  missing: 'User does not exist.',
} as const;

/** What users add creates when missing (v2; v1 always creates the organization and document). */
export interface UserCreateFlags {
  /** Default true. */
  createOrganization?: boolean;
  /** Default false: a named folder must exist. */
  createFolder?: boolean;
  /** Default true. */
  createDocument?: boolean;
}

/** Where a users operation applies (rest-interface part 4, rules 1–3). */
export interface UserScope {
  type: GrantResourceType;
  id: string;
}

/** A user as 'Get users' returns it. */
export interface UserRecord {
  userId: string;
  name: string | null;
  email: string | null;
}

/** `initial` when not supplied: the first letter of the name, else of the e-mail, upper-cased. */
export function initialFor(name: string | null | undefined, email: string | null | undefined): string | null {
  const source = name?.trim() || email?.trim();
  return source ? source.charAt(0).toUpperCase() : null;
}

@Injectable()
export class UsersService {
  constructor(
    private readonly transactions: Transactions,
    private readonly folders: FoldersService,
    private readonly documents: DocumentsService,
    private readonly pageTokens: PageTokens,
    private readonly sql: Sql,
    @InjectRepository(GrantEntity) private readonly grants: Repository<GrantEntity>,
  ) {}

  /**
   * Adds users to the organization, or to one folder or document only (rules 1–3). A missing
   * organization is created (rule 4) unless `createOrganization: false`, and so is a missing
   * document (top level) unless `createDocument: false`; a missing folder only with
   * `createFolder: true` (top level). The organization, folder and document are settled the way
   * documents add settles them, before any user is written. Re-adding replaces the user's details
   * and role there.
   */
  async add(principal: ApiKeyPrincipal, request: UserScopeRequest & { users: UserInput[] } & UserCreateFlags): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    const scope = scopeOf(request);
    return this.transactions.run(async (manager) => {
      await this.folders.requireOrganization(manager, apiKeyId, organizationId, request.createOrganization !== false);
      if (scope.type === 'folder') await this.folders.requireFolder(manager, apiKeyId, organizationId, scope.id, request.createFolder === true);
      if (scope.type === 'document') await this.documents.requireDocument(manager, apiKeyId, organizationId, scope.id, request.createDocument !== false);
      await this.upsertUsers(manager, apiKeyId, request.users);
      const now = Date.now();
      await manager
        .createQueryBuilder()
        .insert()
        .into(GrantEntity)
        .values(
          request.users.map((user) => ({
            apiKeyId,
            organizationId,
            resourceType: scope.type,
            resourceId: scope.id,
            userId: user.userId,
            temporary: false,
            accessRole: user.accessRole ?? ('editor' as AccessRole),
            expiresAt: null,
            createdAt: now,
            lastUpdated: now,
          })),
        )
        .orUpdate(['access_role', 'last_updated'], ['api_key_id', 'organization_id', 'resource_type', 'resource_id', 'user_id', 'temporary'])
        .execute();
      return Object.fromEntries(request.users.map((user) => [user.userId, ok(user.userId, UserMessages.added)]));
    });
  }

  /**
   * Users with a live grant in the scope (organization unless documentId or folderId), filtered
   * by ids and group membership, keyset-paged by user id. One query per page.
   */
  /**
   * Every user in scope, page after page: v1 get has no paging (contract part 4: only v2
   * returns `nextPageToken`), so it must not stop at the first page's 1,000 users.
   */
  async getEveryPage(principal: ApiKeyPrincipal, request: GetUsersV1Request): Promise<UserRecord[]> {
    const users: UserRecord[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.get(principal, { ...request, ...(pageToken ? { pageToken } : {}) });
      users.push(...(page.users as UserRecord[]));
      pageToken = page.nextPageToken;
    } while (pageToken);
    return users;
  }

  async get(principal: ApiKeyPrincipal, request: GetUsersV2Request): Promise<{ users: UserRecord[] | Record<string, UserRecord[]>; nextPageToken?: string }> {
    const { apiKeyId } = principal;
    const { allDocuments = false, groupByDocumentId: grouped = false } = request;
    if (grouped && !allDocuments) throw new ApiError('INVALID_ARGUMENT', 'groupByDocumentId works with allDocuments: true.');
    if (allDocuments && (request.documentId !== undefined || request.folderId !== undefined)) throw new ApiError('INVALID_ARGUMENT', 'allDocuments reads every document: give no documentId or folderId with it.');
    const scope = scopeOf(request);
    const pageSize = request.pageSize ?? PAGE_SIZE.default;
    const filters = { organizationId: request.organizationId, scope: allDocuments ? 'allDocuments' : scope, grouped, userIds: request.userIds ?? null, groups: request.organizationUserGroupIds ?? null };
    // Pages run by user id, or by (document id, user id) when grouped by document.
    const after = request.pageToken ? this.pageTokens.decode<string | [string, string]>(apiKeyId, 'users/get', filters, request.pageToken) : undefined;
    const query = this.grants
      .createQueryBuilder('g')
      .leftJoin(DirectoryUserEntity, 'u', 'u.api_key_id = g.api_key_id AND u.id = g.user_id')
      .select(['g.user_id AS user_id', 'u.name AS name', 'u.email AS email', ...(grouped ? ['g.resource_id AS document_id'] : [])])
      .distinct(true)
      .where('g.api_key_id = :apiKeyId AND g.organization_id = :organizationId', { apiKeyId, organizationId: request.organizationId })
      .andWhere('(g.expires_at IS NULL OR g.expires_at > :now)', { now: unixSeconds() })
      .limit(pageSize + 1);
    if (allDocuments) query.andWhere("g.resource_type = 'document'");
    else query.andWhere('g.resource_type = :type AND g.resource_id = :resourceId', { type: scope.type, resourceId: scope.id });
    if (grouped) query.orderBy('g.resource_id', 'ASC').addOrderBy('g.user_id', 'ASC');
    else query.orderBy('g.user_id', 'ASC');
    if (request.userIds) query.andWhere('g.user_id IN (:...userIds)', { userIds: request.userIds.length ? request.userIds : [''] });
    if (request.organizationUserGroupIds) {
      const members = query
        .subQuery()
        .select('m.user_id')
        .from(UserGroupMemberEntity, 'm')
        .where('m.api_key_id = :apiKeyId AND m.organization_id = :organizationId AND m.group_id IN (:...groupIds)')
        .getQuery();
      query.andWhere(`g.user_id IN ${members}`, { groupIds: request.organizationUserGroupIds.length ? request.organizationUserGroupIds : [''] });
    }
    if (Array.isArray(after)) query.andWhere('(g.resource_id > :afterDocument OR (g.resource_id = :afterDocument AND g.user_id > :afterUser))', { afterDocument: after[0], afterUser: after[1] });
    else if (after !== undefined) query.andWhere('g.user_id > :after', { after });
    const rows = await query.getRawMany<{ user_id: string; name: string | null; email: string | null; document_id?: string }>();
    const page = this.pageTokens.page(rows, pageSize, apiKeyId, 'users/get', filters, (last): string | [string, string] => (grouped ? [last.document_id!, last.user_id] : last.user_id));
    const user = (row: (typeof rows)[number]): UserRecord => ({ userId: row.user_id, name: row.name, email: row.email });
    if (!grouped) return { users: page.items.map(user), nextPageToken: page.next };
    const byDocument: Record<string, UserRecord[]> = {};
    for (const row of page.items) (byDocument[row.document_id!] ??= []).push(user(row));
    return { users: byDocument, nextPageToken: page.next };
  }

  /** Names and e-mail addresses of known users, by id (users never added are absent). */
  async profiles(apiKeyId: string, userIds: readonly string[]): Promise<Map<string, { name: string | null; email: string | null }>> {
    const profiles = new Map<string, { name: string | null; email: string | null }>();
    // In chunks of 1,000: a list can be longer than a statement's parameter limit.
    for (let start = 0; start < userIds.length; start += 1000) {
      const rows = await this.sql.rows<{ id: string; name: string | null; email: string | null }>('SELECT id, name, email FROM directory_user WHERE api_key_id = :apiKeyId AND id IN (:...userIds)', {
        apiKeyId,
        userIds: userIds.slice(start, start + 1000),
      });
      for (const row of rows) profiles.set(row.id, { name: row.name, email: row.email });
    }
    return profiles;
  }

  /** Updates details (and, with accessRole, the role in the scope) of users in the scope. */
  async update(principal: ApiKeyPrincipal, request: UserScopeRequest & { users: UserInput[] }): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const scope = scopeOf(request);
    return this.transactions.run(async (manager) => {
      const present = await this.usersInScope(manager, apiKeyId, request.organizationId, scope, request.users.map((u) => u.userId));
      const users = request.users.filter((u) => present.has(u.userId));
      await this.upsertUsers(manager, apiKeyId, users);
      const now = Date.now();
      for (const role of ['editor', 'viewer'] as const) {
        const ids = users.filter((u) => u.accessRole === role).map((u) => u.userId);
        if (ids.length) {
          await manager.update(
            GrantEntity,
            { apiKeyId, organizationId: request.organizationId, resourceType: scope.type, resourceId: scope.id, userId: In(ids), temporary: false },
            { accessRole: role, lastUpdated: now },
          );
        }
      }
      return Object.fromEntries(request.users.map((u) => [u.userId, present.has(u.userId) ? ok(u.userId, UserMessages.updated) : failed(u.userId, UserMessages.missing)]));
    });
  }

  /** Removes users from the scope (their grants there; from the organization also their group memberships). */
  async delete(principal: ApiKeyPrincipal, request: UserScopeRequest & { userIds: string[] }): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    const scope = scopeOf(request);
    return this.transactions.run(async (manager) => {
      const present = [...(await this.usersInScope(manager, apiKeyId, organizationId, scope, request.userIds))];
      if (present.length) {
        await manager.delete(GrantEntity, { apiKeyId, organizationId, resourceType: scope.type, resourceId: scope.id, userId: In(present) });
        if (scope.type === 'organization') await manager.delete(UserGroupMemberEntity, { apiKeyId, organizationId, userId: In(present) });
      }
      const removed = new Set(present);
      return Object.fromEntries(request.userIds.map((id) => [id, removed.has(id) ? ok(id, UserMessages.removed) : failed(id, UserMessages.missing)]));
    });
  }

  /** Which of `userIds` hold a live grant on the scope. */
  async usersInScope(manager: EntityManager, apiKeyId: string, organizationId: string, scope: UserScope, userIds: string[]): Promise<Set<string>> {
    if (!userIds.length) return new Set();
    const rows = await manager
      .createQueryBuilder(GrantEntity, 'g')
      .select('g.user_id', 'user_id')
      .where('g.api_key_id = :apiKeyId AND g.organization_id = :organizationId', { apiKeyId, organizationId })
      .andWhere('g.resource_type = :type AND g.resource_id = :resourceId AND g.user_id IN (:...userIds)', { type: scope.type, resourceId: scope.id, userIds })
      .andWhere('(g.expires_at IS NULL OR g.expires_at > :now)', { now: unixSeconds() })
      .getRawMany<{ user_id: string }>();
    return new Set(rows.map((row) => row.user_id));
  }

  /** Creates or updates user records (details merged, metadata merged); two statements. */
  private async upsertUsers(manager: EntityManager, apiKeyId: string, users: UserInput[]): Promise<void> {
    if (!users.length) return;
    const current = new Map((await manager.find(DirectoryUserEntity, { where: { apiKeyId, id: In(users.map((u) => u.userId)) }, ...this.transactions.rowLock })).map((u) => [u.id, u]));
    const now = Date.now();
    const rows = users.map((user): DirectoryUserEntity => {
      const before = current.get(user.userId);
      const name = user.name ?? before?.name ?? null;
      const email = user.email ?? before?.email ?? null;
      return {
        apiKeyId,
        id: user.userId,
        name,
        email,
        initial: user.initial ?? (user.name !== undefined || user.email !== undefined ? initialFor(name, email) : (before?.initial ?? initialFor(name, email))),
        metadata: { ...before?.metadata, ...splitMetadata(user, USER_FIELDS) },
        createdAt: before?.createdAt ?? now,
        lastUpdated: now,
      };
    });
    // TypeORM's partial-entity type cannot follow JSON columns typed as records.
    await manager
      .createQueryBuilder()
      .insert()
      .into(DirectoryUserEntity)
      .values(rows as never[])
      .orUpdate(['name', 'email', 'initial', 'metadata', 'last_updated'], ['api_key_id', 'id'])
      .execute();
  }
}

/** Rules 1–3: the organization, or only the folder, or only the document. */
export function scopeOf(request: { organizationId: string; documentId?: string; folderId?: string }): UserScope {
  if (request.documentId !== undefined && request.folderId !== undefined) {
    throw new ApiError('INVALID_ARGUMENT', 'Give either documentId or folderId, not both.');
  }
  if (request.documentId !== undefined) return { type: 'document', id: request.documentId };
  if (request.folderId !== undefined) return { type: 'folder', id: request.folderId };
  return { type: 'organization', id: request.organizationId };
}

