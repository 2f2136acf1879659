import { Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../../database/column-types.js';

@Entity('user_group_member')
export class UserGroupMemberEntity {
  @PrimaryColumn({ name: 'api_key_id', type: 'varchar', length: 24 })
  apiKeyId!: string;

  @PrimaryColumn({ name: 'organization_id', type: 'varchar', length: 256 })
  organizationId!: string;

  @PrimaryColumn({ name: 'group_id', type: 'varchar', length: 256 })
  groupId!: string;

  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 256 })
  userId!: string;

  @TimestampColumn('created_at')
  createdAt!: number;
}
