import { Injectable, type OnModuleInit } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import { unixSeconds } from '../common/time.js';
import { Conditions, Sql } from '../database/sql.js';
import { DirectoryDeletes, type DeletedPlaces, type DirectoryObserver } from '../directory/directory-deletes.js';
import { DocumentMoves, type DocumentMove, type DocumentMoveObserver } from '../directory/document-moves.js';
import type { MemberPageQuery, MemberRole, MemberRow, Memberships, UserScope } from '../directory/memberships.js';
import { AccessContextEntity } from './entities/access-context.entity.js';
import { GrantEntity, type AccessRole, type GrantResourceType } from './entities/grant.entity.js';

/** A grant as held: a user's role at an organization, folder or document, until `expiresAt` when temporary. */
export interface Grant {
  userId: string;
  resourceType: GrantResourceType;
  resourceId: string;
  temporary: boolean;
  accessRole: AccessRole;
  /** Unix seconds; null for a regular grant. */
  expiresAt: number | null;
}

/** A grant to write: temporary exactly when it has an `expiresAt`. */
export interface GrantInput {
  organizationId: string;
  resourceType: GrantResourceType;
  resourceId: string;
  userId: string;
  accessRole: AccessRole;
  /** Unix seconds; null for a regular grant. */
  expiresAt: number | null;
}

/** Where a grant is: an organization (its own id), or a folder or document of one. */
export interface GrantPlace {
  organizationId: string;
  resourceType: GrantResourceType;
  resourceId: string;
}

/** A grant of one user, as the user-data export lists it. */
export interface UserGrant {
  resourceType: GrantResourceType;
  resourceId: string;
  accessRole: AccessRole;
  temporary: boolean;
  /** Unix seconds, for a temporary grant; else null. */
  expiresAt: number | null;
  createdAt: number;
  lastUpdated: number;
}

/** Where a list of a user's grants continues: after this resource type, id, and temporary flag (0 regular, 1 temporary). */
export type UserGrantCursor = [resourceType: string, resourceId: string, temporary: number];

/** Ids per DELETE, well under every engine's parameter limit. */
const DELETE_CHUNK = 500;

type GrantRow = {
  user_id: string;
  resource_type: GrantResourceType;
  resource_id: string;
  temporary: boolean | number;
  access_role: AccessRole;
  expires_at: number | string | null;
};

/**
 * The one place grants (`access_grant`) and users' access context (`access_context`) are read
 * and written, and the one place their entities are used. Callers get typed records, never
 * driver rows: booleans and numbers come out as such on both engines.
 *
 * Access depends on directory (its stores, read for resolution, and the services that create
 * what permissions add names), never the other way round: grants follow the folders and documents
 * they are on by observing directory's deletes (`DirectoryDeletes`), registered at start-up as
 * memory's `JudgmentStore` observes the activity log; and directory's users operations reach them
 * through the `Memberships` directory declares, which `GrantsModule` binds to this class.
 *
 * Each statement says why it is plain SQL (`Sql`) or TypeORM: plain SQL where the read is on a
 * hot path (permissions get) or the statement has a shape TypeORM's builder only slows down;
 * TypeORM where the entity maps a batch write to one statement and its cost does not matter.
 */
@Injectable()
export class GrantStore implements Memberships, DirectoryObserver, DocumentMoveObserver, OnModuleInit {
  constructor(
    private readonly sql: Sql,
    private readonly directoryDeletes: DirectoryDeletes,
    private readonly documentMoves: DocumentMoves,
  ) {}

  onModuleInit(): void {
    this.directoryDeletes.observers.add(this);
    this.documentMoves.observers.add(this);
  }

  /**
   * The users' (or, with `userIds` undefined, everyone's) grants in an organization: on the
   * organization itself and on the given documents and folders. One query.
   */
  async grantsAt(
    apiKeyId: string,
    organizationId: string,
    userIds: readonly string[] | undefined,
    at: { documentIds: readonly string[]; folderIds: readonly string[] },
  ): Promise<Grant[]> {
    const places = ["resource_type = 'organization' AND resource_id = :organizationId"];
    if (at.documentIds.length) places.push("resource_type = 'document' AND resource_id IN (:...documentIds)");
    if (at.folderIds.length) places.push("resource_type = 'folder' AND resource_id IN (:...folderIds)");
    const select =
      'SELECT user_id, resource_type, resource_id, temporary, access_role, expires_at FROM access_grant WHERE api_key_id = :apiKeyId AND organization_id = :organizationId';
    // Plain SQL: permissions get's hot path, one statement whatever the numbers. Some users'
    // grants are found through the users' index, the places tested on each. Everyone's (a
    // document's audience, on every notifying comment) are found place by place through the
    // primary key: tested on every grant of the organization instead, as one OR, they cost
    // 20 ms for 1,147 of 49k grants on SQLite; 1.4 ms this way.
    const sql = userIds
      ? `${select} AND user_id IN (:...userIds) AND (${places.map((place) => `(${place})`).join(' OR ')})`
      : places.map((place) => `${select} AND ${place}`).join(' UNION ALL ');
    const rows = await this.sql.rows<GrantRow>(sql, {
      apiKeyId,
      organizationId,
      documentIds: at.documentIds,
      folderIds: at.folderIds,
      ...(userIds ? { userIds } : {}),
    });
    return rows.map(toGrant);
  }

  /** The users' `context.accessFields` in an organization, by user; users without one are absent. One query. */
  async accessFields(apiKeyId: string, organizationId: string, userIds: readonly string[]): Promise<Map<string, string[]>> {
    if (!userIds.length) return new Map();
    // Plain SQL: permissions get's hot path.
    const rows = await this.sql.rows<{ user_id: string; access_fields: string }>(
      'SELECT user_id, access_fields FROM access_context WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND user_id IN (:...userIds)',
      { apiKeyId, organizationId, userIds },
    );
    return new Map(rows.map((row) => [row.user_id, JSON.parse(row.access_fields) as string[]]));
  }

  /**
   * Writes grants (permissions add). A temporary grant is a row of its own beside a regular one;
   * re-adding replaces role and expiry. One statement.
   */
  async putGrants(manager: EntityManager, apiKeyId: string, grants: readonly GrantInput[]): Promise<void> {
    if (!grants.length) return;
    const now = Date.now();
    // TypeORM: the entity maps a batch (at most one request's) to one upsert; not a hot path.
    await manager
      .createQueryBuilder()
      .insert()
      .into(GrantEntity)
      .values(grants.map((grant) => ({ apiKeyId, ...grant, temporary: grant.expiresAt !== null, createdAt: now, lastUpdated: now })))
      .orUpdate(['access_role', 'expires_at', 'last_updated'], ['api_key_id', 'organization_id', 'resource_type', 'resource_id', 'user_id', 'temporary'])
      .execute();
  }

  /** Sets a user's `context.accessFields` in an organization (permissions add), replacing any earlier ones. */
  async putAccessFields(manager: EntityManager, apiKeyId: string, organizationId: string, userId: string, accessFields: readonly string[]): Promise<void> {
    // TypeORM: the entity's JSON column encodes the list; one row, not a hot path.
    await manager
      .createQueryBuilder()
      .insert()
      .into(AccessContextEntity)
      .values({ apiKeyId, organizationId, userId, accessFields: accessFields as never, lastUpdated: Date.now() })
      .orUpdate(['access_fields', 'last_updated'], ['api_key_id', 'organization_id', 'user_id'])
      .execute();
  }

  /** Removes a user's grants, regular and temporary, at the places (permissions remove). One statement. */
  async removeGrants(manager: EntityManager, apiKeyId: string, userId: string, places: readonly GrantPlace[]): Promise<void> {
    if (!places.length) return;
    // TypeORM: a list of conditions becomes one statement of OR-ed groups.
    await manager.delete(
      GrantEntity,
      places.map((place) => ({ apiKeyId, ...place, userId })),
    );
  }

  async putMemberships(
    manager: EntityManager,
    apiKeyId: string,
    organizationId: string,
    scope: UserScope,
    members: readonly { userId: string; accessRole: MemberRole }[],
  ): Promise<void> {
    if (!members.length) return;
    const now = Date.now();
    // TypeORM: the entity maps a batch (at most one request's) to one upsert; not a hot path.
    await manager
      .createQueryBuilder()
      .insert()
      .into(GrantEntity)
      .values(
        members.map((member) => ({
          apiKeyId,
          organizationId,
          resourceType: scope.type,
          resourceId: scope.id,
          userId: member.userId,
          temporary: false,
          accessRole: member.accessRole,
          expiresAt: null,
          createdAt: now,
          lastUpdated: now,
        })),
      )
      .orUpdate(['access_role', 'last_updated'], ['api_key_id', 'organization_id', 'resource_type', 'resource_id', 'user_id', 'temporary'])
      .execute();
  }

  async setMemberRole(
    manager: EntityManager,
    apiKeyId: string,
    organizationId: string,
    scope: UserScope,
    userIds: readonly string[],
    role: MemberRole,
  ): Promise<void> {
    if (!userIds.length) return;
    // TypeORM: a plain update by key, one statement; not a hot path.
    await manager.update(
      GrantEntity,
      { apiKeyId, organizationId, resourceType: scope.type, resourceId: scope.id, userId: In([...userIds]), temporary: false },
      { accessRole: role, lastUpdated: Date.now() },
    );
  }

  async removeMemberships(manager: EntityManager, apiKeyId: string, organizationId: string, scope: UserScope, userIds: readonly string[]): Promise<void> {
    if (!userIds.length) return;
    // TypeORM: a plain delete by key, one statement; not a hot path.
    await manager.delete(GrantEntity, { apiKeyId, organizationId, resourceType: scope.type, resourceId: scope.id, userId: In([...userIds]) });
  }

  async membersAmong(manager: EntityManager, apiKeyId: string, organizationId: string, scope: UserScope, userIds: readonly string[]): Promise<Set<string>> {
    if (!userIds.length) return new Set();
    // TypeORM: the read runs on the unit of work's connection, inside its transaction on
    // PostgreSQL too (`Sql.rows` would read on another); at most a batch of ids.
    const rows = await manager
      .createQueryBuilder(GrantEntity, 'g')
      .select('g.user_id', 'user_id')
      .where('g.api_key_id = :apiKeyId AND g.organization_id = :organizationId', { apiKeyId, organizationId })
      .andWhere('g.resource_type = :type AND g.resource_id = :resourceId AND g.user_id IN (:...userIds)', { type: scope.type, resourceId: scope.id, userIds })
      .andWhere('(g.expires_at IS NULL OR g.expires_at > :now)', { now: unixSeconds() })
      .getRawMany<{ user_id: string }>();
    return new Set(rows.map((row) => row.user_id));
  }

  async memberPage(apiKeyId: string, query: MemberPageQuery): Promise<MemberRow[]> {
    const { scope, after } = query;
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .equal('organization_id', query.organizationId)
      .add('(expires_at IS NULL OR expires_at > :now)', { now: unixSeconds() });
    if (scope === 'allDocuments') where.add("resource_type = 'document'");
    else where.equal('resource_type', scope.type).equal('resource_id', scope.id);
    where.among('user_id', query.userIds);
    if (query.among) where.add(`user_id IN (${query.among.sql})`, query.among.parameters);
    if (Array.isArray(after))
      where.add('(resource_id > :afterDocument OR (resource_id = :afterDocument AND user_id > :afterUser))', { afterDocument: after[0], afterUser: after[1] });
    else if (after !== undefined) where.add('user_id > :afterUser', { afterUser: after });
    // Plain SQL: pages of up to 1,000 ids read as plain rows (v1 get reads every page), with filters
    // that come and go; a regular and a temporary grant of one user are one member (DISTINCT).
    const rows = await this.sql.rows<{ user_id: string; resource_id?: string }>(
      `SELECT DISTINCT ${query.byDocument ? 'resource_id, user_id' : 'user_id'} FROM access_grant WHERE ${where}
        ORDER BY ${query.byDocument ? 'resource_id, user_id' : 'user_id'} LIMIT :limit`,
      { ...where.parameters, limit: query.limit },
    );
    return rows.map((row) => (query.byDocument ? { userId: row.user_id, documentId: row.resource_id! } : { userId: row.user_id }));
  }

  /**
   * A user's grants in an organization (the user-data export): `limit` at most, ordered by
   * resource type, resource id, regular before temporary, after `after`. One query.
   */
  async grantsOfUser(apiKeyId: string, organizationId: string, userId: string, after: UserGrantCursor | undefined, limit: number): Promise<UserGrant[]> {
    const order = 'resource_type, resource_id, CASE WHEN temporary THEN 1 ELSE 0 END';
    // Plain SQL: a keyset page over a row-value comparison, which TypeORM's builder cannot express.
    const rows = await this.sql.rows<{
      resource_type: GrantResourceType;
      resource_id: string;
      access_role: AccessRole;
      temporary: boolean | number;
      expires_at: number | string | null;
      created_at: number | string;
      last_updated: number | string;
    }>(
      `SELECT resource_type, resource_id, access_role, temporary, expires_at, created_at, last_updated FROM access_grant
        WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND user_id = :userId${after ? ` AND (${order}) > (:afterType, :afterId, :afterTemporary)` : ''}
        ORDER BY ${order} LIMIT :limit`,
      { apiKeyId, organizationId, userId, ...(after ? { afterType: after[0], afterId: after[1], afterTemporary: after[2] } : {}), limit },
    );
    return rows.map((row) => ({
      resourceType: row.resource_type,
      resourceId: row.resource_id,
      accessRole: row.access_role,
      temporary: Boolean(row.temporary),
      expiresAt: row.expires_at === null ? null : Number(row.expires_at),
      createdAt: Number(row.created_at),
      lastUpdated: Number(row.last_updated),
    }));
  }

  /**
   * Which of the users hold a grant in an organization other than `organizationIds` (they still
   * belong somewhere a user-data erasure of those organizations leaves alone). One query.
   */
  async usersWithGrantsOutside(manager: EntityManager, apiKeyId: string, userIds: readonly string[], organizationIds: readonly string[]): Promise<Set<string>> {
    if (!userIds.length) return new Set();
    // Plain SQL: in the erasing unit of work (`Sql.run`), ids in, ids out.
    const rows = await this.sql.run<{ user_id: string }>(
      manager,
      'SELECT DISTINCT user_id FROM access_grant WHERE api_key_id = :apiKeyId AND user_id IN (:...userIds) AND organization_id NOT IN (:...organizationIds)',
      { apiKeyId, userIds, organizationIds: organizationIds.length ? organizationIds : [''] },
    );
    return new Set(rows.map((row) => row.user_id));
  }

  /** Erases the users' grants and access context, in the given organizations or (null) all of the key's. Two statements. */
  async removeUsers(manager: EntityManager, apiKeyId: string, userIds: readonly string[], organizationIds: readonly string[] | null): Promise<void> {
    if (!userIds.length) return;
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .among('user_id', userIds)
      .among('organization_id', organizationIds ?? undefined);
    // Plain SQL: one statement per table whatever the numbers, with an optional filter.
    await this.sql.run(manager, `DELETE FROM access_grant WHERE ${where}`, where.parameters);
    await this.sql.run(manager, `DELETE FROM access_context WHERE ${where}`, where.parameters);
  }

  /** Grants on a document follow it to its new id, in the moving transaction. One statement. */
  async documentMoved(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void> {
    // Plain SQL: one filtered UPDATE. No grant names the new id: grants go with their document.
    await this.sql.run(
      manager,
      "UPDATE access_grant SET resource_id = :to WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND resource_type = 'document' AND resource_id = :from",
      { apiKeyId, organizationId: move.organizationId, from: move.from, to: move.to },
    );
  }

  /** Grants on deleted folders and documents go with them, in the deleting transaction. */
  async placesDeleted(manager: EntityManager, apiKeyId: string, organizationId: string, deleted: DeletedPlaces): Promise<void> {
    const places = [...deleted.folderIds.map((id) => ['folder', id] as const), ...deleted.documentIds.map((id) => ['document', id] as const)];
    for (let start = 0; start < places.length; start += DELETE_CHUNK) {
      const chunk = places.slice(start, start + DELETE_CHUNK);
      const folderIds = chunk.filter(([type]) => type === 'folder').map(([, id]) => id);
      const documentIds = chunk.filter(([type]) => type === 'document').map(([, id]) => id);
      const at = [
        ...(folderIds.length ? ["(resource_type = 'folder' AND resource_id IN (:...folderIds))"] : []),
        ...(documentIds.length ? ["(resource_type = 'document' AND resource_id IN (:...documentIds))"] : []),
      ];
      // Plain SQL: a subtree's ids, however many, in a statement per chunk (a folder with its documents is one).
      await this.sql.run(manager, `DELETE FROM access_grant WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND (${at.join(' OR ')})`, {
        apiKeyId,
        organizationId,
        ...(folderIds.length ? { folderIds } : {}),
        ...(documentIds.length ? { documentIds } : {}),
      });
    }
  }
}

function toGrant(row: GrantRow): Grant {
  return {
    userId: row.user_id,
    resourceType: row.resource_type,
    resourceId: row.resource_id,
    temporary: Boolean(row.temporary),
    accessRole: row.access_role,
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
  };
}
