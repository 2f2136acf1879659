import { OrganizationScopedRecord } from './organization-scoped.record.js';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AccessType } from '../../common/access-types.js';
import { BooleanColumn, JsonColumn, TextColumn } from '../../database/column-types.js';

@Entity('document')
export class DocumentEntity extends OrganizationScopedRecord {
  @PrimaryColumn({ type: 'varchar', length: 256 })
  id!: string;

  @TextColumn('name', { nullable: true })
  name!: string | null;

  /** Null: top level, outside any folder. */
  @Column({ name: 'folder_id', type: 'varchar', length: 256, nullable: true })
  folderId!: string | null;

  /** Own access type; null means inherited from the folder (or the key's default). */
  @Column({ name: 'access_type', type: 'varchar', length: 24, nullable: true })
  accessType!: AccessType | null;

  @BooleanColumn('disabled')
  disabled!: boolean;

  @JsonColumn('metadata')
  metadata!: Record<string, unknown>;
}
