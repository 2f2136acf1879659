import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { everyPage, PageTokens, PAGE_SIZE } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, splitMetadata, type ItemResults } from '../common/batch.js';
import { USER_FIELDS, type GetUsersV1Request, type GetUsersV2Request, type UserInput, type UserScopeRequest } from './dto/user.dto.js';
import { DirectoryUserStore, type DirectoryUser } from './directory-user-store.js';
import { DocumentsService } from './documents.service.js';
import { FoldersService } from './folders.service.js';
import { OrganizationStore } from './organization-store.js';
import { Memberships, type UserScope } from './memberships.js';
import { groupMembersQuery, UserGroupStore } from './user-group-store.js';
import { DirectoryErrors } from './directory.errors.js';
import type { UserView } from './dto/user.response.js';

export type { UserScope } from './memberships.js';

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

/** `initial` when not supplied: the first letter of the name, else of the e-mail, upper-cased. */
export function initialFor(name: string | null | undefined, email: string | null | undefined): string | null {
  const source = name?.trim() || email?.trim();
  return source ? source.charAt(0).toUpperCase() : null;
}

/** The users operations' rules (scopes, create flags, details merged, pages); `DirectoryUserStore` holds the rows, grants the memberships. */
@Injectable()
export class UsersService {
  constructor(
    private readonly transactions: Transactions,
    private readonly organizations: OrganizationStore,
    private readonly folders: FoldersService,
    private readonly documents: DocumentsService,
    private readonly pageTokens: PageTokens,
    private readonly store: DirectoryUserStore,
    private readonly memberships: Memberships,
    private readonly groups: UserGroupStore,
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
      await this.organizations.require(manager, apiKeyId, organizationId, request.createOrganization !== false);
      if (scope.type === 'folder') await this.folders.requireFolder(manager, apiKeyId, organizationId, scope.id, request.createFolder === true);
      if (scope.type === 'document') await this.documents.requireDocument(manager, apiKeyId, organizationId, scope.id, request.createDocument !== false);
      await this.upsertUsers(manager, apiKeyId, request.users);
      await this.memberships.putMemberships(
        manager,
        apiKeyId,
        organizationId,
        scope,
        request.users.map((user) => ({ userId: user.userId, accessRole: user.accessRole ?? 'editor' })),
      );
      return Object.fromEntries(request.users.map((user) => [user.userId, ok(user.userId, UserMessages.added)]));
    });
  }

  /**
   * Every user in scope, page after page: v1 get has no paging (contract part 4: only v2
   * returns `nextPageToken`), so it must not stop at the first page's 1,000 users.
   */
  async getEveryPage(principal: ApiKeyPrincipal, request: GetUsersV1Request): Promise<UserView[]> {
    return everyPage((pageToken) =>
      this.get(principal, { ...request, pageToken }).then((page) => ({ items: page.data as UserView[], next: page.nextPageToken })),
    );
  }

  /**
   * Users with a live membership (grant) in the scope (organization unless documentId or
   * folderId), filtered by ids and group membership, keyset-paged by user id. Two queries per
   * page: the members, then their profiles.
   */
  async get(principal: ApiKeyPrincipal, request: GetUsersV2Request): Promise<{ data: UserView[] | Record<string, UserView[]>; nextPageToken?: string }> {
    const { apiKeyId } = principal;
    const { allDocuments = false, groupByDocumentId: grouped = false } = request;
    if (grouped && !allDocuments) throw DirectoryErrors.groupByNeedsAllDocuments();
    if (allDocuments && (request.documentId !== undefined || request.folderId !== undefined)) throw DirectoryErrors.allDocumentsWithPlace();
    const scope = scopeOf(request);
    const pageSize = request.pageSize ?? PAGE_SIZE.default;
    const filters = {
      organizationId: request.organizationId,
      scope: allDocuments ? 'allDocuments' : scope,
      grouped,
      userIds: request.userIds ?? null,
      groups: request.organizationUserGroupIds ?? null,
    };
    // Pages run by user id, or by (document id, user id) when grouped by document.
    const after = request.pageToken ? this.pageTokens.decode<string | [string, string]>(apiKeyId, 'users/get', filters, request.pageToken) : undefined;
    const rows = await this.memberships.memberPage(apiKeyId, {
      organizationId: request.organizationId,
      scope: allDocuments ? 'allDocuments' : scope,
      byDocument: grouped,
      ...(request.userIds ? { userIds: request.userIds } : {}),
      ...(request.organizationUserGroupIds ? { among: groupMembersQuery(apiKeyId, request.organizationId, request.organizationUserGroupIds) } : {}),
      ...(after !== undefined ? { after } : {}),
      limit: pageSize + 1,
    });
    const page = this.pageTokens.page(rows, pageSize, apiKeyId, 'users/get', filters, (last): string | [string, string] =>
      grouped ? [last.documentId!, last.userId] : last.userId,
    );
    const profiles = await this.store.profiles(apiKeyId, [...new Set(page.items.map((row) => row.userId))]);
    const user = (row: (typeof rows)[number]): UserView => ({
      userId: row.userId,
      name: profiles.get(row.userId)?.name ?? null,
      email: profiles.get(row.userId)?.email ?? null,
    });
    if (!grouped) return { data: page.items.map(user), nextPageToken: page.next };
    const byDocument: Record<string, UserView[]> = {};
    for (const row of page.items) (byDocument[row.documentId!] ??= []).push(user(row));
    return { data: byDocument, nextPageToken: page.next };
  }

  /**
   * Erases the users from the directory (user-data erasure), in the erasing unit of work: their
   * group memberships in the given organizations (null: all of the key's), then their profile.
   * The profile is the key's, not an organization's: it is kept for a user who still holds a
   * grant in an organization the erasure leaves alone (grants are how users belong anywhere).
   * Two or three statements.
   */
  async forgetUsers(manager: EntityManager, apiKeyId: string, userIds: string[], organizationIds: string[] | null): Promise<void> {
    await this.groups.forgetMembers(manager, apiKeyId, userIds, organizationIds);
    const kept = organizationIds ? await this.memberships.usersWithGrantsOutside(manager, apiKeyId, userIds, organizationIds) : new Set<string>();
    await this.store.delete(
      manager,
      apiKeyId,
      userIds.filter((userId) => !kept.has(userId)),
    );
  }

  /** Updates details (and, with accessRole, the role in the scope) of users in the scope. */
  async update(principal: ApiKeyPrincipal, request: UserScopeRequest & { users: UserInput[] }): Promise<ItemResults> {
    const { apiKeyId } = principal;
    const scope = scopeOf(request);
    return this.transactions.run(async (manager) => {
      const present = await this.usersInScope(
        manager,
        apiKeyId,
        request.organizationId,
        scope,
        request.users.map((u) => u.userId),
      );
      const users = request.users.filter((u) => present.has(u.userId));
      await this.upsertUsers(manager, apiKeyId, users);
      for (const role of ['editor', 'viewer'] as const) {
        await this.memberships.setMemberRole(
          manager,
          apiKeyId,
          request.organizationId,
          scope,
          users.filter((u) => u.accessRole === role).map((u) => u.userId),
          role,
        );
      }
      return Object.fromEntries(
        request.users.map((u) => [u.userId, present.has(u.userId) ? ok(u.userId, UserMessages.updated) : failed(u.userId, UserMessages.missing)]),
      );
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
        await this.memberships.removeMemberships(manager, apiKeyId, organizationId, scope, present);
        if (scope.type === 'organization') await this.groups.removeMembers(manager, apiKeyId, organizationId, present);
      }
      const removed = new Set(present);
      return Object.fromEntries(request.userIds.map((id) => [id, removed.has(id) ? ok(id, UserMessages.removed) : failed(id, UserMessages.missing)]));
    });
  }

  /** Which of `userIds` are members of the scope (hold a live grant there). */
  usersInScope(manager: EntityManager, apiKeyId: string, organizationId: string, scope: UserScope, userIds: string[]): Promise<Set<string>> {
    return this.memberships.membersAmong(manager, apiKeyId, organizationId, scope, userIds);
  }

  /** Creates or updates user records (details merged, metadata merged); two statements. */
  private async upsertUsers(manager: EntityManager, apiKeyId: string, users: UserInput[]): Promise<void> {
    if (!users.length) return;
    const current = await this.store.lockMany(
      manager,
      apiKeyId,
      users.map((u) => u.userId),
    );
    const now = Date.now();
    await this.store.put(
      manager,
      apiKeyId,
      users.map((user): DirectoryUser => {
        const before = current.get(user.userId);
        const name = user.name ?? before?.name ?? null;
        const email = user.email ?? before?.email ?? null;
        return {
          id: user.userId,
          name,
          email,
          initial:
            user.initial ?? (user.name !== undefined || user.email !== undefined ? initialFor(name, email) : (before?.initial ?? initialFor(name, email))),
          metadata: { ...before?.metadata, ...splitMetadata(user, USER_FIELDS) },
          createdAt: before?.createdAt ?? now,
          lastUpdated: now,
        };
      }),
    );
  }
}

/** Rules 1–3: the organization, or only the folder, or only the document. */
export function scopeOf(request: { organizationId: string; documentId?: string; folderId?: string }): UserScope {
  if (request.documentId !== undefined && request.folderId !== undefined) {
    throw DirectoryErrors.documentOrFolder();
  }
  if (request.documentId !== undefined) return { type: 'document', id: request.documentId };
  if (request.folderId !== undefined) return { type: 'folder', id: request.folderId };
  return { type: 'organization', id: request.organizationId };
}
