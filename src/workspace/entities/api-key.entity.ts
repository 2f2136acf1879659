import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { StoredEmailConfig, StoredNotificationConfig, StoredWebhookConfig, KeySettings, StoredAdvancedWebhookConfig } from '../key-configs.js';
import { JsonColumn, TimestampColumn } from '../../database/column-types.js';
import type { ApiKeyType } from '../plans.js';

export type { ApiKeyType } from '../plans.js';

/**
 * An API key: the tenant every piece of data belongs to (contract 1.4). Its delivery configs
 * live here as JSON in the shape the config operations expose, secrets inside them encrypted.
 */
@Entity('api_key')
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 24 })
  id!: string;

  @Column({ name: 'workspace_id', type: 'varchar', length: 20 })
  workspaceId!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'varchar', length: 20 })
  type!: ApiKeyType;

  @Column({ name: 'owner_email', type: 'varchar', length: 320 })
  ownerEmail!: string;

  @Column({ name: 'persistence_db_region', type: 'varchar', length: 40, nullable: true })
  persistenceDbRegion!: string | null;

  @Column({ name: 'realtime_db_region', type: 'varchar', length: 40, nullable: true })
  realtimeDbRegion!: string | null;

  @JsonColumn('email_config')
  emailConfig!: StoredEmailConfig;

  @JsonColumn('webhook_config')
  webhookConfig!: StoredWebhookConfig;

  @JsonColumn('notification_config')
  notificationConfig!: StoredNotificationConfig;

  /** Null until advanced webhooks are first enabled. */
  @JsonColumn('advanced_webhook_config', { nullable: true })
  advancedWebhookConfig!: StoredAdvancedWebhookConfig | null;

  @JsonColumn('settings')
  settings!: KeySettings;

  @TimestampColumn('created_at')
  createdAt!: number;

  @TimestampColumn('last_updated')
  lastUpdated!: number;

  /** When an operator revoked the key (admin CLI); null while it is live. A revoked key has no auth tokens. */
  @TimestampColumn('revoked_at', { nullable: true })
  revokedAt!: number | null;
}
