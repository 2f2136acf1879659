import { Injectable } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import { Conditions, Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { DirectoryErrors } from './directory.errors.js';
import { OrganizationEntity } from './entities/organization.entity.js';

/** An organization row without its key (the caller's scope). */
export type Organization = Omit<OrganizationEntity, 'apiKeyId'>;

/** An organization as other modules need it to decide access. */
export interface OrganizationState {
  id: string;
  disabled: boolean;
}

interface OrganizationRow {
  id: string;
  name: string | null;
  disabled: boolean | number;
  metadata: string;
  created_at: number | string;
  last_updated: number | string;
}

function organizationOf(row: OrganizationRow): Organization {
  return {
    id: row.id,
    name: row.name,
    disabled: Boolean(row.disabled),
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: Number(row.created_at),
    lastUpdated: Number(row.last_updated),
  };
}

/**
 * Owner of `organization`: every statement on it, scoped by the API key. Its row lock is the one
 * other directory writes take first (`lock`, `require`), so it is the organization's owner that
 * says whether an organization exists, not the folders or documents that live in it. TypeORM
 * for the plain reads and writes; `Sql` for the byte-bounded page and the dialect's lock clause.
 */
@Injectable()
export class OrganizationStore {
  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
  ) {}

  /** The organization's id and disabled flag, as access resolution reads it (plain SQL, on the path of permissions get). */
  async state(apiKeyId: string, organizationId: string): Promise<OrganizationState | undefined> {
    const [row] = await this.sql.rows<{ id: string; disabled: boolean | number }>(
      'SELECT id, disabled FROM organization WHERE api_key_id = :apiKeyId AND id = :organizationId',
      {
        apiKeyId,
        organizationId,
      },
    );
    return row && { id: row.id, disabled: Boolean(row.disabled) };
  }

  /** Which of `ids` exist. */
  async existingIds(manager: EntityManager, apiKeyId: string, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await manager.find(OrganizationEntity, { where: { apiKeyId, id: In(ids) }, select: { id: true } });
    return new Set(rows.map((row) => row.id));
  }

  /** The organizations of `ids` that exist, locked until the transaction ends. */
  async lockMany(manager: EntityManager, apiKeyId: string, ids: string[]): Promise<Map<string, Organization>> {
    if (!ids.length) return new Map();
    const rows = await manager.find(OrganizationEntity, { where: { apiKeyId, id: In(ids) }, ...this.transactions.rowLock });
    return new Map(rows.map(({ apiKeyId: _key, ...row }) => [row.id, row]));
  }

  /** Writes whole rows: new ones added, existing ones replaced but for their creation time. */
  async put(manager: EntityManager, apiKeyId: string, organizations: Organization[]): Promise<void> {
    if (!organizations.length) return;
    // TypeORM's partial-entity type cannot follow JSON columns typed as records.
    await manager
      .createQueryBuilder()
      .insert()
      .into(OrganizationEntity)
      .values(organizations.map((row) => ({ ...row, apiKeyId })) as never[])
      .orUpdate(['name', 'disabled', 'metadata', 'last_updated'], ['api_key_id', 'id'])
      .execute();
  }

  /** Deletes organizations and, through the schema's cascades, everything under them. */
  async delete(manager: EntityManager, apiKeyId: string, ids: string[]): Promise<void> {
    if (ids.length) await manager.delete(OrganizationEntity, { apiKeyId, id: In(ids) });
  }

  async setDisabled(manager: EntityManager, apiKeyId: string, ids: string[], disabled: boolean, at: number): Promise<void> {
    if (ids.length) await manager.update(OrganizationEntity, { apiKeyId, id: In(ids) }, { disabled, lastUpdated: at });
  }

  /**
   * Up to `limit` organizations after `after` in (createdAt, id) order, among `ids` when given,
   * within `maxBytes` of names and metadata (`cut` when that stopped the page early).
   */
  async page(
    apiKeyId: string,
    ids: string[] | undefined,
    after: [createdAt: number, id: string] | undefined,
    limit: number,
    maxBytes: number,
  ): Promise<{ organizations: Organization[]; cut: boolean }> {
    const where = new Conditions().equal('api_key_id', apiKeyId).among('id', ids);
    if (after) where.add('(created_at, id) > (:afterCreatedAt, :afterId)', { afterCreatedAt: after[0], afterId: after[1] });
    const { rows, cut } = await this.sql.rowsWithinBytes<OrganizationRow>({
      select: 'id, name, disabled, metadata, created_at, last_updated',
      from: `organization WHERE ${where}`,
      orderBy: 'created_at, id',
      size: 'LENGTH(metadata) + COALESCE(LENGTH(name), 0)',
      parameters: where.parameters,
      limit,
      maxBytes,
    });
    return { organizations: rows.map(organizationOf), cut };
  }

  /**
   * Creates the organizations that do not exist yet (users add, activities, CRDT writes). One
   * cached statement (plain SQL), for the reason `DocumentStore.ensure` gives.
   */
  async ensure(manager: EntityManager, apiKeyId: string, ids: string[]): Promise<void> {
    const now = Date.now();
    const unique = [...new Set(ids)];
    if (!unique.length) return;
    await this.sql.insertNew(
      manager,
      'organization',
      ['api_key_id', 'id', 'name', 'disabled', 'metadata', 'created_at', 'last_updated'],
      unique.map((id) => [apiKeyId, id, null, false, '{}', now, now]),
      ['api_key_id', 'id'],
      'id',
    );
  }

  async exists(manager: EntityManager, apiKeyId: string, id: string): Promise<boolean> {
    return manager.existsBy(OrganizationEntity, { apiKeyId, id });
  }

  /**
   * Locks the organization's row until the transaction ends (on PostgreSQL; the embedded
   * database runs one unit of work at a time) and says whether it exists. Writes that read an
   * organization's folder tree or its documents before changing them take it first, so two of
   * them never act on what the other is changing (two moves making a cycle, two adds of one id).
   */
  async lock(manager: EntityManager, apiKeyId: string, id: string): Promise<boolean> {
    // Plain SQL: `Sql.lockRows` adds the dialect's lock clause. Keys kept: documents and grants
    // referring to the organization may still be added by other writes.
    return (
      (await this.sql.lockRows(manager, 'SELECT id FROM organization WHERE api_key_id = :apiKeyId AND id = :id', { apiKeyId, id }, { keysKept: true })).length >
      0
    );
  }

  /**
   * Keeps the organizations of `ids` from being deleted until the transaction ends (`FOR KEY
   * SHARE` on PostgreSQL: other writes to them go on). A write that relies on rows under an
   * organization without locking it for change takes this first: deleting an organization
   * locks its row and then its documents, so holding a document before its organization (and
   * then inserting a row whose key names the organization) deadlocked with that delete.
   */
  async hold(manager: EntityManager, apiKeyId: string, ids: readonly string[]): Promise<void> {
    const unique = [...new Set(ids)].sort();
    if (!unique.length) return;
    await this.sql.lockRows(
      manager,
      'SELECT id FROM organization WHERE api_key_id = :apiKeyId AND id IN (:...ids) ORDER BY id',
      { apiKeyId, ids: unique },
      { readOnly: true },
    );
  }

  /** The organization, created when asked, and locked for the rest of the transaction (see `lock`); NOT_FOUND when missing. */
  async require(manager: EntityManager, apiKeyId: string, id: string, create: boolean): Promise<void> {
    if (create) await this.ensure(manager, apiKeyId, [id]);
    if (!(await this.lock(manager, apiKeyId, id))) throw DirectoryErrors.organizationMissing();
  }
}
