import { Injectable } from '@nestjs/common';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { AllowedDomainStore } from './allowed-domain-store.js';
import { normaliseDomain } from './domains.js';
import { WorkspaceErrors } from './workspace.errors.js';

/** Allowed domains of an API key (contract part 2); the table is `AllowedDomainStore`'s. */
@Injectable()
export class DomainsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly domains: AllowedDomainStore,
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
    const domainsAdded = await this.transactions.run((manager) => this.domains.insertNew(manager, principal.apiKeyId, requested, Date.now()));
    const skippedDomains = requested.filter((domain) => !domainsAdded.includes(domain));
    if (skippedDomains.length > 0) {
      throw WorkspaceErrors.domainsPartlyAdded(domainsAdded, skippedDomains);
    }
    return { domainsAdded };
  }

  async list(principal: ApiKeyPrincipal): Promise<{ allowedDomains: string[] }> {
    return { allowedDomains: await this.domains.ofKey(principal.apiKeyId) };
  }

  async remove(principal: ApiKeyPrincipal, entries: string[]): Promise<{ domainsRemoved: string[] }> {
    const requested = this.normaliseAll(entries, 'data.domains');
    const domainsRemoved = await this.transactions.run(async (manager) => {
      const removed = await this.domains.remove(manager, principal.apiKeyId, requested);
      return requested.filter((domain) => removed.includes(domain));
    });
    const skippedDomains = requested.filter((domain) => !domainsRemoved.includes(domain));
    if (skippedDomains.length > 0) {
      throw WorkspaceErrors.domainsPartlyRemoved(domainsRemoved, skippedDomains);
    }
    return { domainsRemoved };
  }
}
