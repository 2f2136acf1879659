import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PageTokens, PAGE_BYTES, PAGE_SIZE } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { failed, ok, splitMetadata, type ItemResults } from '../common/batch.js';
import { DirectoryMessages } from './directory.errors.js';
import { ORGANIZATION_FIELDS, type GetOrganizationsRequest, type OrganizationInput } from './dto/organization.dto.js';
import { OrganizationStore, type Organization } from './organization-store.js';

/** An organization as returned: caller metadata spread at the top level, known fields win. */
export type OrganizationRecord = Record<string, unknown> & {
  id: string;
  organizationName: string | null;
  disabled: boolean;
  createdAt: number;
  lastUpdated: number;
};

export function toOrganizationRecord(row: Organization): OrganizationRecord {
  return { ...row.metadata, id: row.id, organizationName: row.name, disabled: row.disabled, createdAt: row.createdAt, lastUpdated: row.lastUpdated };
}

/** The organizations operations' rules: answers per id, metadata merged on update, pages; `OrganizationStore` holds the rows. */
@Injectable()
export class OrganizationsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly pageTokens: PageTokens,
    private readonly store: OrganizationStore,
  ) {}

  /** Upserts: new ones are added, existing ones updated (metadata merged). Two statements. */
  async add(principal: ApiKeyPrincipal, items: OrganizationInput[]): Promise<ItemResults> {
    await this.transactions.run((manager) => this.upsert(manager, principal.apiKeyId, items));
    return Object.fromEntries(items.map((item) => [item.organizationId, ok(item.organizationId, DirectoryMessages.organizationAdded)]));
  }

  async update(principal: ApiKeyPrincipal, items: OrganizationInput[]): Promise<ItemResults> {
    return this.transactions.run(async (manager) => {
      const existing = await this.store.existingIds(
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
      const existing = await this.store.existingIds(manager, principal.apiKeyId, ids);
      await this.store.delete(manager, principal.apiKeyId, [...existing]);
      return Object.fromEntries(
        ids.map((id) => [id, existing.has(id) ? ok(id, DirectoryMessages.organizationDeleted) : failed(id, DirectoryMessages.organizationMissing)]),
      );
    });
  }

  async setDisabled(principal: ApiKeyPrincipal, ids: string[], disabled: boolean): Promise<ItemResults> {
    return this.transactions.run(async (manager) => {
      const existing = await this.store.existingIds(manager, principal.apiKeyId, ids);
      await this.store.setDisabled(manager, principal.apiKeyId, [...existing], disabled, Date.now());
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
    const { organizations, cut } = await this.store.page(principal.apiKeyId, request.organizationIds, after, pageSize + 1, PAGE_BYTES);
    const page = this.pageTokens.page(organizations, pageSize, principal.apiKeyId, 'organizations/get', filters, (last) => [last.createdAt, last.id], cut);
    return { data: page.items.map(toOrganizationRecord), nextPageToken: page.next };
  }

  /** New organizations are added; existing ones keep what an item leaves out, their metadata merged. */
  private async upsert(manager: EntityManager, apiKeyId: string, items: OrganizationInput[]): Promise<void> {
    if (!items.length) return;
    const current = await this.store.lockMany(
      manager,
      apiKeyId,
      items.map((i) => i.organizationId),
    );
    const now = Date.now();
    await this.store.put(
      manager,
      apiKeyId,
      items.map((item): Organization => {
        const before = current.get(item.organizationId);
        return {
          id: item.organizationId,
          name: item.organizationName ?? before?.name ?? null,
          disabled: item.disabled ?? before?.disabled ?? false,
          metadata: { ...before?.metadata, ...splitMetadata(item, ORGANIZATION_FIELDS) },
          createdAt: before?.createdAt ?? now,
          lastUpdated: now,
        };
      }),
    );
  }
}
