import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type EntityManager, type Repository } from 'typeorm';
import { PageTokens, PAGE_BYTES, PAGE_SIZE } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Conditions, Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, splitMetadata, type ItemResults } from '../common/batch.js';
import { DirectoryMessages } from './directory.errors.js';
import { ORGANIZATION_FIELDS, type GetOrganizationsRequest, type OrganizationInput } from './dto/organization.dto.js';
import { OrganizationEntity } from './entities/organization.entity.js';

/** An organization as returned: caller metadata spread at the top level, known fields win. */
export type OrganizationRecord = Record<string, unknown> & {
  id: string;
  organizationName: string | null;
  disabled: boolean;
  createdAt: number;
  lastUpdated: number;
};

export function toOrganizationRecord(row: Omit<OrganizationEntity, 'apiKeyId'>): OrganizationRecord {
  return { ...row.metadata, id: row.id, organizationName: row.name, disabled: row.disabled, createdAt: row.createdAt, lastUpdated: row.lastUpdated };
}

interface OrganizationRow {
  id: string;
  name: string | null;
  disabled: boolean | number;
  metadata: string;
  created_at: number | string;
  last_updated: number | string;
}

function organizationOf(row: OrganizationRow): Omit<OrganizationEntity, 'apiKeyId'> {
  return {
    id: row.id,
    name: row.name,
    disabled: Boolean(row.disabled),
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: Number(row.created_at),
    lastUpdated: Number(row.last_updated),
  };
}

@Injectable()
export class OrganizationsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly pageTokens: PageTokens,
    private readonly sql: Sql,
    @InjectRepository(OrganizationEntity) private readonly organizations: Repository<OrganizationEntity>,
  ) {}

  /** Upserts: new ones are added, existing ones updated (metadata merged). Two statements. */
  async add(principal: ApiKeyPrincipal, items: OrganizationInput[]): Promise<ItemResults> {
    await this.transactions.run((manager) => this.upsert(manager, principal.apiKeyId, items));
    return Object.fromEntries(items.map((item) => [item.organizationId, ok(item.organizationId, DirectoryMessages.organizationAdded)]));
  }

  async update(principal: ApiKeyPrincipal, items: OrganizationInput[]): Promise<ItemResults> {
    return this.transactions.run(async (manager) => {
      const existing = await this.existingIds(
        manager,
        principal.apiKeyId,
        items.map((i) => i.organizationId),
      );
      await this.upsert(
        manager,
        principal.apiKeyId,
        items.filter((item) => existing.has(item.organizationId)),
      );
      return Object.fromEntries(
        items.map((item) => [
          item.organizationId,
          existing.has(item.organizationId)
            ? ok(item.organizationId, DirectoryMessages.organizationUpdated)
            : failed(item.organizationId, DirectoryMessages.organizationMissing),
        ]),
      );
    });
  }

  /** Deletes organizations and, through the schema's cascades, everything under them, in one transaction. */
  async delete(principal: ApiKeyPrincipal, ids: string[]): Promise<ItemResults> {
    return this.transactions.run(async (manager) => {
      const existing = await this.existingIds(manager, principal.apiKeyId, ids);
      if (existing.size) await manager.delete(OrganizationEntity, { apiKeyId: principal.apiKeyId, id: In([...existing]) });
      return Object.fromEntries(
        ids.map((id) => [id, existing.has(id) ? ok(id, DirectoryMessages.organizationDeleted) : failed(id, DirectoryMessages.organizationMissing)]),
      );
    });
  }

  async setDisabled(principal: ApiKeyPrincipal, ids: string[], disabled: boolean): Promise<ItemResults> {
    return this.transactions.run(async (manager) => {
      const existing = await this.existingIds(manager, principal.apiKeyId, ids);
      if (existing.size)
        await manager.update(OrganizationEntity, { apiKeyId: principal.apiKeyId, id: In([...existing]) }, { disabled, lastUpdated: Date.now() });
      return Object.fromEntries(
        ids.map((id) => [id, existing.has(id) ? ok(id, DirectoryMessages.organizationDisableStateUpdated) : failed(id, DirectoryMessages.organizationMissing)]),
      );
    });
  }

  /** Keyset pages over (createdAt, id); `nextPageToken` only when more follow. */
  async get(principal: ApiKeyPrincipal, request: GetOrganizationsRequest): Promise<{ data: OrganizationRecord[]; nextPageToken?: string }> {
    const pageSize = request.pageSize ?? PAGE_SIZE.default;
    const filters = { organizationIds: request.organizationIds ?? null };
    const after = request.pageToken ? this.pageTokens.decode<[number, string]>(principal.apiKeyId, 'organizations/get', filters, request.pageToken) : undefined;
    const where = new Conditions().equal('api_key_id', principal.apiKeyId).among('id', request.organizationIds);
    if (after) where.add('(created_at, id) > (:afterCreatedAt, :afterId)', { afterCreatedAt: after[0], afterId: after[1] });
    const { rows, cut } = await this.sql.rowsWithinBytes<OrganizationRow>({
      select: 'id, name, disabled, metadata, created_at, last_updated',
      from: `organization WHERE ${where}`,
      orderBy: 'created_at, id',
      size: 'LENGTH(metadata) + COALESCE(LENGTH(name), 0)',
      parameters: where.parameters,
      limit: pageSize + 1,
      maxBytes: PAGE_BYTES,
    });
    const page = this.pageTokens.page(
      rows.map(organizationOf),
      pageSize,
      principal.apiKeyId,
      'organizations/get',
      filters,
      (last) => [last.createdAt, last.id],
      cut,
    );
    return { data: page.items.map(toOrganizationRecord), nextPageToken: page.next };
  }

  /** Creates the organizations that do not exist yet (users add, activities, CRDT writes). */
  async ensure(manager: EntityManager, apiKeyId: string, ids: string[]): Promise<void> {
    const now = Date.now();
    const unique = [...new Set(ids)];
    if (!unique.length) return;
    await manager
      .createQueryBuilder()
      .insert()
      .into(OrganizationEntity)
      .values(unique.map((id) => ({ apiKeyId, id, name: null, disabled: false, metadata: {}, createdAt: now, lastUpdated: now })))
      .orIgnore()
      .execute();
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

  private async existingIds(manager: EntityManager, apiKeyId: string, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await manager.find(OrganizationEntity, { where: { apiKeyId, id: In(ids) }, select: { id: true } });
    return new Set(rows.map((row) => row.id));
  }

  private async upsert(manager: EntityManager, apiKeyId: string, items: OrganizationInput[]): Promise<void> {
    if (!items.length) return;
    const current = new Map(
      (await manager.find(OrganizationEntity, { where: { apiKeyId, id: In(items.map((i) => i.organizationId)) }, ...this.transactions.rowLock })).map((row) => [
        row.id,
        row,
      ]),
    );
    const now = Date.now();
    const rows = items.map((item): OrganizationEntity => {
      const before = current.get(item.organizationId);
      return {
        apiKeyId,
        id: item.organizationId,
        name: item.organizationName ?? before?.name ?? null,
        disabled: item.disabled ?? before?.disabled ?? false,
        metadata: { ...before?.metadata, ...splitMetadata(item, ORGANIZATION_FIELDS) },
        createdAt: before?.createdAt ?? now,
        lastUpdated: now,
      };
    });
    // TypeORM's partial-entity type cannot follow JSON columns typed as records.
    await manager
      .createQueryBuilder()
      .insert()
      .into(OrganizationEntity)
      .values(rows as never[])
      .orUpdate(['name', 'disabled', 'metadata', 'last_updated'], ['api_key_id', 'id'])
      .execute();
  }
}
