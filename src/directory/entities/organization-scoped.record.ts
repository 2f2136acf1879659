import { PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../database/column-types.js';

/** Creation and change times in epoch milliseconds (rest-interface convention 6). */
export abstract class TimestampedRecord {
  @TimestampColumn('created_at')
  createdAt!: number;

  @TimestampColumn('last_updated')
  lastUpdated!: number;
}

/** A record of an API key known by the caller's id (organizations, users): its key starts with the key. */
export abstract class KeyScopedRecord extends TimestampedRecord {
  @PrimaryColumn({ name: 'api_key_id', type: 'varchar', length: 24 })
  apiKeyId!: string;

  @PrimaryColumn({ type: 'varchar', length: 256 })
  id!: string;
}

/** A record inside an organization: its key starts with the owning API key and the organization. */
export abstract class OrganizationScopedRecord extends TimestampedRecord {
  @PrimaryColumn({ name: 'api_key_id', type: 'varchar', length: 24 })
  apiKeyId!: string;

  @PrimaryColumn({ name: 'organization_id', type: 'varchar', length: 256 })
  organizationId!: string;
}
