import { OrganizationScopedRecord } from './organization-scoped.record.js';
import { Entity, PrimaryColumn } from 'typeorm';
import { TextColumn } from '../../database/column-types.js';

@Entity('user_group')
export class UserGroupEntity extends OrganizationScopedRecord {
  @PrimaryColumn({ type: 'varchar', length: 256 })
  id!: string;

  @TextColumn('name', { nullable: true })
  name!: string | null;
}
