import { OrganizationScopedRecord } from './organization-scoped.record.js';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AccessType } from '../../common/access-types.js';
import { TextColumn } from '../../database/column-types.js';

/** A folder; `path` holds the encoded ids from the top down to itself (see folder-paths.ts). */
@Entity('folder')
export class FolderEntity extends OrganizationScopedRecord {
  @PrimaryColumn({ type: 'varchar', length: 256 })
  id!: string;

  @TextColumn('name', { nullable: true })
  name!: string | null;

  /** Null for a top-level folder (`root` on the wire). */
  @Column({ name: 'parent_id', type: 'varchar', length: 256, nullable: true })
  parentId!: string | null;

  @TextColumn('path')
  path!: string;

  @Column({ type: 'integer' })
  depth!: number;

  /** Own access type; null means inherited from the parent (`inheritAccessFromParent`). */
  @Column({ name: 'access_type', type: 'varchar', length: 24, nullable: true })
  accessType!: AccessType | null;
}
