import { Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../database/column-types.js';

/** A domain allowed to use an API key, stored normalised. */
@Entity('allowed_domain')
export class AllowedDomainEntity {
  @PrimaryColumn({ name: 'api_key_id', type: 'varchar', length: 24 })
  apiKeyId!: string;

  @PrimaryColumn({ type: 'varchar', length: 260 })
  domain!: string;

  @TimestampColumn('created_at')
  createdAt!: number;
}
