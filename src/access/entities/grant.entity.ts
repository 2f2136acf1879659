import { OrganizationScopedRecord } from '../../directory/entities/organization-scoped.record.js';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../database/column-types.js';

export type GrantResourceType = 'organization' | 'folder' | 'document';
export type AccessRole = 'editor' | 'viewer';

/**
 * A user's access to an organization, folder or document: made by users add (each scope) and by
 * permissions add alike. A temporary grant (with `expiresAt`) is a row of its own beside a
 * regular one, so it never replaces it (contract part 5).
 */
@Entity('access_grant')
export class GrantEntity extends OrganizationScopedRecord {
  @PrimaryColumn({ name: 'resource_type', type: 'varchar', length: 16 })
  resourceType!: GrantResourceType;

  /** The organization's own id for organization grants. */
  @PrimaryColumn({ name: 'resource_id', type: 'varchar', length: 256 })
  resourceId!: string;

  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 256 })
  userId!: string;

  @PrimaryColumn({ type: 'boolean' })
  temporary!: boolean;

  @Column({ name: 'access_role', type: 'varchar', length: 16 })
  accessRole!: AccessRole;

  /** Unix seconds; set on temporary grants only. */
  @TimestampColumn('expires_at', { nullable: true })
  expiresAt!: number | null;
}
