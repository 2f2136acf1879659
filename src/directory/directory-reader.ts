import { Injectable } from '@nestjs/common';
import type { AccessType } from '../common/access-types.js';
import { Sql } from '../database/sql.js';

/** An organization as other modules need it to decide access. */
export interface OrganizationState {
  id: string;
  disabled: boolean;
}

/** A folder's place in its tree and its own access type (null when it inherits). */
export interface FolderNode {
  id: string;
  /** Materialised path of encoded ids (see folder-paths.ts). */
  path: string;
  accessType: AccessType | null;
}

/** A document with what decides its access: its own type, its disabled flag and its folder. */
export interface DocumentPlacement {
  id: string;
  folderId: string | null;
  accessType: AccessType | null;
  disabled: boolean;
  /** The document's folder, when it has one and it exists. */
  folder?: FolderNode;
}

type DocumentRow = {
  id: string;
  folder_id: string | null;
  access_type: AccessType | null;
  disabled: boolean | number;
  folder_path: string | null;
  folder_access_type: AccessType | null;
};

/**
 * Directory's read API for organizations, folders and documents, for modules that decide
 * things from them (access's permission resolution). The dependency runs one way: access
 * depends on directory (this reader, and the services that create what permissions add names),
 * and directory never imports access. Where directory needs access (memberships, which are
 * grants; grants on deleted folders and documents), the dependency is inverted: directory
 * declares `Memberships` (memberships.ts), which access binds, and announces deletes through
 * `DirectoryDeletes`, which access observes.
 *
 * Every statement is plain SQL: these reads are on the path of permissions get, where building
 * queries through TypeORM costs more than running them (see `Sql`). Each runs once per request
 * whatever the number of resources.
 */
@Injectable()
export class DirectoryReader {
  constructor(private readonly sql: Sql) {}

  async organization(apiKeyId: string, organizationId: string): Promise<OrganizationState | undefined> {
    const [row] = await this.sql.rows<{ id: string; disabled: boolean | number }>(
      'SELECT id, disabled FROM organization WHERE api_key_id = :apiKeyId AND id = :organizationId',
      {
        apiKeyId,
        organizationId,
      },
    );
    return row && { id: row.id, disabled: Boolean(row.disabled) };
  }

  /** The documents of an organization by id, each with its folder, in one query (a join); missing ones are absent. */
  async documentsWithFolders(apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<DocumentPlacement[]> {
    if (!ids.length) return [];
    const rows = await this.sql.rows<DocumentRow>(
      `SELECT d.id, d.folder_id, d.access_type, d.disabled, f.path AS folder_path, f.access_type AS folder_access_type FROM document d
        LEFT JOIN folder f ON f.api_key_id = d.api_key_id AND f.organization_id = d.organization_id AND f.id = d.folder_id
        WHERE d.api_key_id = :apiKeyId AND d.organization_id = :organizationId AND d.id IN (:...ids)`,
      { apiKeyId, organizationId, ids },
    );
    return rows.map((d) => ({
      id: d.id,
      folderId: d.folder_id,
      accessType: d.access_type,
      disabled: Boolean(d.disabled),
      ...(d.folder_id && d.folder_path !== null ? { folder: { id: d.folder_id, path: d.folder_path, accessType: d.folder_access_type } } : {}),
    }));
  }

  /**
   * Folders of an organization by id, in one query; with `ownAccessTypeOnly`, only those that
   * set their own access type (one that inherits changes no effective type).
   */
  async folders(apiKeyId: string, organizationId: string, ids: readonly string[], { ownAccessTypeOnly = false } = {}): Promise<FolderNode[]> {
    if (!ids.length) return [];
    const rows = await this.sql.rows<{ id: string; path: string; access_type: AccessType | null }>(
      `SELECT id, path, access_type FROM folder WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id IN (:...ids)${ownAccessTypeOnly ? ' AND access_type IS NOT NULL' : ''}`,
      { apiKeyId, organizationId, ids },
    );
    return rows.map((f) => ({ id: f.id, path: f.path, accessType: f.access_type }));
  }
}
