import { Column, Entity, PrimaryColumn } from 'typeorm';
import { JsonColumn, TextColumn, TimestampColumn } from '../../database/column-types.js';

/** An auth token of an API key; found by its keyed hash, never stored in clear. */
@Entity('api_key_auth_token')
export class ApiKeyAuthTokenEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  @Column({ name: 'api_key_id', type: 'varchar', length: 24 })
  apiKeyId!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, unique: true })
  tokenHash!: string;

  @TextColumn('token_enc')
  tokenEnc!: string;

  @JsonColumn('domains')
  domains!: string[];

  @TimestampColumn('created_at')
  createdAt!: number;
}
