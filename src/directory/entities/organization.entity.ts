import { KeyScopedRecord } from './organization-scoped.record.js';
import { Entity } from 'typeorm';
import { BooleanColumn, JsonColumn, TextColumn } from '../../database/column-types.js';

@Entity('organization')
export class OrganizationEntity extends KeyScopedRecord {
  @TextColumn('name', { nullable: true })
  name!: string | null;

  @BooleanColumn('disabled')
  disabled!: boolean;

  /** Caller fields beyond the known ones, returned spread at the top level. */
  @JsonColumn('metadata')
  metadata!: Record<string, unknown>;
}
