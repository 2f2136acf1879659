import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../database/column-types.js';

/** A workspace owner, one per e-mail address, so the owner `id` is stable across workspaces. */
@Entity('account')
export class AccountEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 })
  id!: string;

  /** Lower-cased address. */
  @Column({ type: 'varchar', length: 320, unique: true })
  email!: string;

  @TimestampColumn('created_at')
  createdAt!: number;
}
