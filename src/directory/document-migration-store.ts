import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newSortableId } from '../common/ids.js';
import { Sql } from '../database/sql.js';

/** Upstream's values of a migration's `status`. */
export const MIGRATION_STATUSES = ['pending', 'in_progress', 'completed', 'failed'] as const;
export type MigrationStatus = (typeof MIGRATION_STATUSES)[number];

/** A migration as `.../migrate/status` reports it. */
export interface MigrationRecord {
  migrationId: string;
  status: MigrationStatus;
}

/**
 * The owner of `document_migration`: every statement is scoped by the migration's API key.
 * Plain SQL: two small statements, nothing for an entity to convert.
 */
@Injectable()
export class DocumentMigrationStore {
  constructor(private readonly sql: Sql) {}

  /** Records a migration that completed in `manager`'s unit of work; its id. */
  async recordCompleted(manager: EntityManager, apiKeyId: string, move: { organizationId: string; from: string; to: string }, now: number): Promise<string> {
    const id = newSortableId('mig_');
    await this.sql.insert(
      manager,
      'document_migration',
      ['api_key_id', 'id', 'organization_id', 'document_id', 'new_document_id', 'status', 'created_at', 'completed_at'],
      [[apiKeyId, id, move.organizationId, move.from, move.to, 'completed' satisfies MigrationStatus, now, now]],
    );
    return id;
  }

  /** The migration, when the key has one of this id in this organization. */
  async find(apiKeyId: string, organizationId: string, migrationId: string): Promise<MigrationRecord | undefined> {
    const [row] = await this.sql.rows<{ status: MigrationStatus }>(
      'SELECT status FROM document_migration WHERE api_key_id = :apiKeyId AND id = :migrationId AND organization_id = :organizationId',
      { apiKeyId, organizationId, migrationId },
    );
    return row && { migrationId, status: row.status };
  }
}
