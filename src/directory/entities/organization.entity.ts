import { TimestampedRecord } from './organization-scoped.record.js';
import { Entity, PrimaryColumn } from 'typeorm';
import { BooleanColumn, JsonColumn, TextColumn } from '../../database/column-types.js';

@Entity('organization')
export class OrganizationEntity extends TimestampedRecord {
  @PrimaryColumn({ name: 'api_key_id', type: 'varchar', length: 24 })
  apiKeyId!: string;

  @PrimaryColumn({ type: 'varchar', length: 256 })
  id!: string;

  @TextColumn('name', { nullable: true })
  name!: string | null;

  @BooleanColumn('disabled')
  disabled!: boolean;

  /** Caller fields beyond the known ones, returned spread at the top level. */
  @JsonColumn('metadata')
  metadata!: Record<string, unknown>;
}
