import { Injectable } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import { Sql } from '../database/sql.js';
import { AllowedDomainEntity } from './entities/allowed-domain.entity.js';

/**
 * The owner of `allowed_domain`, the domains allowed to use an API key (stored normalised):
 * every statement on it is a method here, answering domain names. Plain SQL for the reads (one
 * column, and the delivery pipeline reads every mailing key's) and for the insert that passes
 * over existing rows; the entity for the rare delete.
 */
@Injectable()
export class AllowedDomainStore {
  constructor(private readonly sql: Sql) {}

  /** The key's domains, oldest first. */
  async ofKey(apiKeyId: string): Promise<string[]> {
    const rows = await this.sql.rows<{ domain: string }>('SELECT domain FROM allowed_domain WHERE api_key_id = :apiKeyId ORDER BY created_at, domain', {
      apiKeyId,
    });
    return rows.map((row) => row.domain);
  }

  /** The domains of each key (empty for a key with none), in one query. */
  async ofKeys(apiKeyIds: readonly string[]): Promise<Map<string, string[]>> {
    const domains = new Map(apiKeyIds.map((id) => [id, [] as string[]]));
    if (!apiKeyIds.length) return domains;
    const rows = await this.sql.rows<{ api_key_id: string; domain: string }>(
      'SELECT api_key_id, domain FROM allowed_domain WHERE api_key_id IN (:...apiKeyIds)',
      { apiKeyIds: [...apiKeyIds] },
    );
    for (const row of rows) domains.get(row.api_key_id)?.push(row.domain);
    return domains;
  }

  /**
   * Inserts the domains not yet present for the key, in the caller's unit of work; returns those
   * it inserted. Plain SQL: one statement that passes over existing rows (`Sql.insertNew`, ON
   * CONFLICT DO NOTHING RETURNING), so adds of the same domain at once cannot collide.
   */
  async insertNew(manager: EntityManager, apiKeyId: string, domains: readonly string[], now: number): Promise<string[]> {
    const unique = [...new Set(domains)];
    if (unique.length === 0) return [];
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

  /** Deletes those of the domains the key has, in the caller's unit of work; returns them. Entity: a rare write, a find and a delete by key. */
  async remove(manager: EntityManager, apiKeyId: string, domains: readonly string[]): Promise<string[]> {
    const present = (await manager.find(AllowedDomainEntity, { where: { apiKeyId, domain: In([...domains]) } })).map((row) => row.domain);
    if (present.length) await manager.delete(AllowedDomainEntity, { apiKeyId, domain: In(present) });
    return present;
  }
}
