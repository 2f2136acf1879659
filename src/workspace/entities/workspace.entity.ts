import { Column, Entity, PrimaryColumn } from 'typeorm';
import { BooleanColumn, TextColumn, TimestampColumn } from '../../database/column-types.js';
import type { WorkspacePlan } from '../plans.js';

export type { WorkspacePlan } from '../plans.js';

@Entity('workspace')
export class WorkspaceEntity {
  @PrimaryColumn({ type: 'varchar', length: 20 })
  id!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 40 })
  accountId!: string;

  @Column({ name: 'owner_name', type: 'varchar', length: 200 })
  ownerName!: string;

  @Column({ name: 'owner_avatar', type: 'varchar', length: 2000 })
  ownerAvatar!: string;

  /** Keyed hash of the workspace auth token, compared in constant time. */
  @Column({ name: 'auth_token_hash', type: 'varchar', length: 64 })
  authTokenHash!: string;

  /** The auth token, encrypted (returned by get workspace and login verify). */
  @TextColumn('auth_token_enc')
  authTokenEnc!: string;

  @Column({ type: 'varchar', length: 10 })
  plan!: WorkspacePlan;

  @BooleanColumn('self_serve_production_keys')
  selfServeProductionKeys!: boolean;

  @TimestampColumn('created_at')
  createdAt!: number;

  @TimestampColumn('last_updated')
  lastUpdated!: number;
}
