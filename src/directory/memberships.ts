import type { EntityManager } from 'typeorm';
import type { Parameters } from '../database/sql.js';
import type { ACCESS_ROLES } from './dto/user.dto.js';

/** Where a users operation applies (rest-interface part 4, rules 1–3). */
export interface UserScope {
  type: 'organization' | 'folder' | 'document';
  id: string;
}

/** A user's role where they are a member. */
export type MemberRole = (typeof ACCESS_ROLES)[number];

/** One row of a users get page: a member, and with `byDocument` the document they are a member of. */
export interface MemberRow {
  userId: string;
  documentId?: string;
}

/** A page of members with a live membership (users get), keyset-paged. */
export interface MemberPageQuery {
  organizationId: string;
  /** One scope, or every document of the organization (`allDocuments`). */
  scope: UserScope | 'allDocuments';
  /** One row per (document, user), ordered by document then user; else one per user, by user. */
  byDocument: boolean;
  /** Only these users. */
  userIds?: readonly string[];
  /**
   * Only the users this subquery selects (one `user_id` column), with its parameters: directory
   * writes it over its own tables (group membership), so the page stays one statement.
   */
  among?: { sql: string; parameters: Parameters };
  /** The last row of the previous page: a user id, or (document id, user id) with `byDocument`. */
  after?: string | [documentId: string, userId: string];
  limit: number;
}

/**
 * What directory's users operations need of memberships. A user is a member of an organization,
 * folder or document by holding a grant there, and grants are access's table
 * (access/grant-store.ts). Access depends on directory (it reads directory's stores
 * and creates what permissions add names through its services), so directory must not import access:
 * it declares here what it needs, and access binds its `GrantStore` to this token (see
 * access/grants.module.ts). Folder and document deletes go the same way round, announced through
 * `DirectoryDeletes`.
 */
export abstract class Memberships {
  /** Makes users members of the scope with a role (regular grants); re-adding replaces the role. */
  abstract putMemberships(
    manager: EntityManager,
    apiKeyId: string,
    organizationId: string,
    scope: UserScope,
    members: readonly { userId: string; accessRole: MemberRole }[],
  ): Promise<void>;

  /** Sets the role of members of the scope (their regular grants). */
  abstract setMemberRole(
    manager: EntityManager,
    apiKeyId: string,
    organizationId: string,
    scope: UserScope,
    userIds: readonly string[],
    role: MemberRole,
  ): Promise<void>;

  /** Ends the users' membership of the scope (their grants there, regular and temporary). */
  abstract removeMemberships(manager: EntityManager, apiKeyId: string, organizationId: string, scope: UserScope, userIds: readonly string[]): Promise<void>;

  /** Which of the users hold a live membership of the scope, as this unit of work sees it. */
  abstract membersAmong(manager: EntityManager, apiKeyId: string, organizationId: string, scope: UserScope, userIds: readonly string[]): Promise<Set<string>>;

  /** A page of members with a live membership, `limit` rows at most. One query. */
  abstract memberPage(apiKeyId: string, query: MemberPageQuery): Promise<MemberRow[]>;

  /**
   * Which of the users hold a grant in an organization other than `organizationIds` (they still
   * belong somewhere a user-data erasure of those organizations leaves alone). One query.
   */
  abstract usersWithGrantsOutside(
    manager: EntityManager,
    apiKeyId: string,
    userIds: readonly string[],
    organizationIds: readonly string[],
  ): Promise<Set<string>>;
}
