import { Injectable } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import { ApiError } from '../common/errors.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { normaliseDomain } from './domains.js';
import { AllowedDomainEntity } from './entities/allowed-domain.entity.js';
import { WorkspaceErrors } from './workspace.errors.js';

export const DOMAINS_ADDED_MESSAGE = 'Domain(s) added successfully to allowed domains.';
export const DOMAINS_REMOVED_MESSAGE = 'Domain(s) removed successfully from allowed domains.';

/** Allowed domains of an API key (contract part 2). */
@Injectable()
export class DomainsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly sql: Sql,
  ) {}

  /** Normalised, de-duplicated entries; INVALID_ARGUMENT naming the first bad one. */
  normaliseAll(entries: string[], path: string): string[] {
    const normalised = entries.map((entry, index) => {
      const domain = normaliseDomain(entry);
      if (domain === undefined) throw WorkspaceErrors.invalidDomain(`${path}[${index}]`, entry);
      return domain;
    });
    return [...new Set(normalised)];
  }

  /**
   * Adds the new domains; when some already existed, answers the INTERNAL envelope the
   * contract asks for, after the new ones are committed.
   */
  async add(principal: ApiKeyPrincipal, entries: string[]): Promise<{ domainsAdded: string[] }> {
    const requested = this.normaliseAll(entries, 'data.domains');
    const domainsAdded = await this.transactions.run((manager) => this.insertNew(manager, principal.apiKeyId, requested));
    const skippedDomains = requested.filter((domain) => !domainsAdded.includes(domain));
    if (skippedDomains.length > 0) {
      throw new ApiError('INTERNAL', `${DOMAINS_ADDED_MESSAGE} Skipped existing domains.`, { domainsAdded, skippedDomains });
    }
    return { domainsAdded };
  }

  async list(principal: ApiKeyPrincipal): Promise<{ allowedDomains: string[] }> {
    const rows = await this.sql.rows<{ domain: string }>('SELECT domain FROM allowed_domain WHERE api_key_id = :apiKeyId ORDER BY created_at, domain', {
      apiKeyId: principal.apiKeyId,
    });
    return { allowedDomains: rows.map((row) => row.domain) };
  }

  /** Allowed domains of each key (empty for a key with none), in one query. */
  async domainsOf(apiKeyIds: readonly string[]): Promise<Map<string, string[]>> {
    const domains = new Map(apiKeyIds.map((id) => [id, [] as string[]]));
    if (!apiKeyIds.length) return domains;
    const rows = await this.sql.rows<{ api_key_id: string; domain: string }>('SELECT api_key_id, domain FROM allowed_domain WHERE api_key_id IN (:...apiKeyIds)', { apiKeyIds: [...apiKeyIds] });
    for (const row of rows) domains.get(row.api_key_id)?.push(row.domain);
    return domains;
  }

  async remove(principal: ApiKeyPrincipal, entries: string[]): Promise<{ domainsRemoved: string[] }> {
    const requested = this.normaliseAll(entries, 'data.domains');
    const domainsRemoved = await this.transactions.run(async (manager) => {
      const present = await manager.find(AllowedDomainEntity, { where: { apiKeyId: principal.apiKeyId, domain: In(requested) } });
      const names = present.map((row) => row.domain);
      if (names.length) await manager.delete(AllowedDomainEntity, { apiKeyId: principal.apiKeyId, domain: In(names) });
      return requested.filter((domain) => names.includes(domain));
    });
    const skippedDomains = requested.filter((domain) => !domainsRemoved.includes(domain));
    if (skippedDomains.length > 0) {
      throw new ApiError('INTERNAL', `${DOMAINS_REMOVED_MESSAGE} Skipped non-existing domains.`, { domainsRemoved, skippedDomains });
    }
    return { domainsRemoved };
  }

  /**
   * Inserts the domains not yet present for the key; returns those it inserted. One statement
   * that passes over existing rows, so adds of the same domain at once cannot collide.
   */
  async insertNew(manager: EntityManager, apiKeyId: string, domains: string[]): Promise<string[]> {
    const unique = [...new Set(domains)];
    if (unique.length === 0) return [];
    const now = Date.now();
    const inserted = new Set(
      await this.sql.insertNew(
        manager,
        'allowed_domain',
        ['api_key_id', 'domain', 'created_at'],
        unique.map((domain) => [apiKeyId, domain, now]),
        ['api_key_id', 'domain'],
        'domain',
      ),
    );
    return unique.filter((domain) => inserted.has(domain));
  }
}
