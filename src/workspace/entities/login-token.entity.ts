import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../database/column-types.js';

/** A single-use login-link token, kept only as its keyed hash. */
@Entity('login_token')
export class LoginTokenEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ type: 'varchar', length: 320 })
  email!: string;

  @TimestampColumn('expires_at')
  expiresAt!: number;

  @TimestampColumn('used_at', { nullable: true })
  usedAt!: number | null;

  @TimestampColumn('created_at')
  createdAt!: number;
}
