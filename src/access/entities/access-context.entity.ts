import { Entity, PrimaryColumn } from 'typeorm';
import { JsonColumn, TimestampColumn } from '../../database/column-types.js';

/** `context.accessFields` of a user in an organization (permissions add). */
@Entity('access_context')
export class AccessContextEntity {
  @PrimaryColumn({ name: 'api_key_id', type: 'varchar', length: 24 })
  apiKeyId!: string;

  @PrimaryColumn({ name: 'organization_id', type: 'varchar', length: 256 })
  organizationId!: string;

  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 256 })
  userId!: string;

  @JsonColumn('access_fields')
  accessFields!: string[];

  @TimestampColumn('last_updated')
  lastUpdated!: number;
}
