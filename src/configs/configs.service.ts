import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { AppConfig } from '../config/app-config.js';
import { Transactions } from '../database/transactions.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import { ConfigCodec } from '../workspace/config-codec.js';
import { ConfigErrors } from './configs.errors.js';
import { flattenTriggers } from '../common/event-catalogue.js';
import type {
  NotificationServiceConfigUpdate,
  UpdateAdvancedWebhookConfigRequest,
  UpdateEmailConfigRequest,
  UpdateNotificationConfigRequest,
  UpdateWebhookConfigRequest,
} from './dto/config.dto.js';
import {
  applyEmailConfigChange,
  applyNotificationConfigChange,
  notificationConfigView,
  applyWebhookConfigChange,
  stripUndefined,
  type KeyConfigs,
  type StoredAdvancedWebhookConfig,
  type StoredNotificationConfig,
} from '../workspace/key-configs.js';

const NEVER_CONFIGURED_ADVANCED: StoredAdvancedWebhookConfig = {
  isEnabled: false,
  encryptData: false,
  encodeData: false,
  publicKey: '',
  enableDataProtection: false,
};

/**
 * The API key's delivery configs (contract part 3). Every update reads the row locked, applies
 * the state machine of rest-interface part 3 and answers the full state after the write.
 */
@Injectable()
export class ConfigsService {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly transactions: Transactions,
    private readonly codec: ConfigCodec,
    private readonly config: AppConfig,
  ) {}

  async getEmail(principal: ApiKeyPrincipal) {
    return this.codec.emailView((await this.read(principal.apiKeyId)).email);
  }

  async updateEmail(principal: ApiKeyPrincipal, request: UpdateEmailConfigRequest) {
    if (request.useEmailService === undefined && request.emailServiceConfig === undefined)
      throw ConfigErrors.nothingSent(['useEmailService', 'emailServiceConfig']);
    const { email } = await this.change(principal.apiKeyId, (stored) => {
      const next = applyEmailConfigChange(stored.email, this.codec.emailChange(request.useEmailService, request.emailServiceConfig));
      // A provider mail cannot go out without the provider's key.
      if (next.useEmailService && next.emailServiceConfig.type === 'thirdparty' && next.emailServiceConfig.apiKeyEnc === '') throw ConfigErrors.invalidEmail();
      return { email: next };
    });
    return this.codec.emailView(email!);
  }

  async getWebhook(principal: ApiKeyPrincipal) {
    return this.codec.webhookView((await this.read(principal.apiKeyId)).webhook);
  }

  async updateWebhook(principal: ApiKeyPrincipal, request: UpdateWebhookConfigRequest) {
    if (request.useWebhookService === undefined && request.webhookServiceConfig === undefined)
      throw ConfigErrors.nothingSent(['useWebhookService', 'webhookServiceConfig']);
    const { webhook } = await this.change(principal.apiKeyId, (stored) => {
      const next = applyWebhookConfigChange(stored.webhook, this.codec.webhookChange(request.useWebhookService, request.webhookServiceConfig));
      if (next.webhookServiceConfig.encryptData && next.webhookServiceConfig.publicKey === '')
        throw ConfigErrors.encryptWithoutKey('data.webhookServiceConfig.publicKey');
      return { webhook: next };
    });
    return this.codec.webhookView(webhook!);
  }

  async getNotification(principal: ApiKeyPrincipal): Promise<StoredNotificationConfig> {
    return notificationConfigView((await this.read(principal.apiKeyId)).notification);
  }

  async updateNotification(principal: ApiKeyPrincipal, request: UpdateNotificationConfigRequest): Promise<StoredNotificationConfig> {
    if (request.useNotificationService === undefined && request.notificationServiceConfig === undefined)
      throw ConfigErrors.nothingSent(['useNotificationService', 'notificationServiceConfig']);
    const { notification } = await this.change(principal.apiKeyId, (stored) => ({
      notification: applyNotificationConfigChange(stored.notification, {
        useNotificationService: request.useNotificationService,
        notificationServiceConfig: flatNotificationConfig(request.notificationServiceConfig),
      }),
    }));
    return notificationConfigView(notification!);
  }

  /** Whether the key's notification service is on (the preference operations need it). */
  async requireNotificationService(apiKeyId: string): Promise<void> {
    if (!(await this.read(apiKeyId)).notification.useNotificationService) throw ConfigErrors.notificationServiceOff();
  }

  async getAdvanced(principal: ApiKeyPrincipal): Promise<StoredAdvancedWebhookConfig> {
    this.requireAdvancedAvailable();
    return (await this.read(principal.apiKeyId)).advanced ?? NEVER_CONFIGURED_ADVANCED;
  }

  /** Body first (no field: INVALID_ARGUMENT), then state (first update without `isEnabled: true`). */
  async updateAdvanced(principal: ApiKeyPrincipal, request: UpdateAdvancedWebhookConfigRequest): Promise<StoredAdvancedWebhookConfig> {
    this.requireAdvancedAvailable();
    const fields: Partial<StoredAdvancedWebhookConfig> = stripUndefined(request);
    if (!Object.keys(fields).length) throw ConfigErrors.nothingSent(['isEnabled', 'encryptData', 'encodeData', 'publicKey', 'enableDataProtection']);
    const { advanced } = await this.change(principal.apiKeyId, (stored) => {
      if (stored.advanced === null && fields.isEnabled !== true) throw ConfigErrors.advancedNotConfigured();
      const next = { ...(stored.advanced ?? NEVER_CONFIGURED_ADVANCED), ...fields };
      if (next.encryptData && next.publicKey === '') throw ConfigErrors.encryptWithoutKey('data.publicKey');
      return { advanced: next };
    });
    return advanced!;
  }

  /**
   * Endpoint operations need advanced webhooks available, configured and enabled
   * (FAILED_PRECONDITION with the contract's message for each).
   */
  async requireAdvancedEnabled(apiKeyId: string): Promise<StoredAdvancedWebhookConfig> {
    this.requireAdvancedAvailable();
    const { advanced } = await this.read(apiKeyId);
    if (advanced === null) throw ConfigErrors.advancedNotConfigured();
    if (!advanced.isEnabled) throw ConfigErrors.advancedDisabled();
    return advanced;
  }

  /**
   * The stored configs of several keys (secrets still sealed), for the delivery pipeline. With
   * `ADVANCED_WEBHOOKS=false`, advanced webhooks read as never configured: nothing goes out.
   * Inside a unit of work, read on its connection.
   */
  async storedConfigs(apiKeyIds: readonly string[]): Promise<Map<string, KeyConfigs>> {
    const configs = await this.keys.configsByKey(apiKeyIds);
    if (this.config.advancedWebhooks) return configs;
    return new Map([...configs].map(([apiKeyId, stored]) => [apiKeyId, { ...stored, advanced: null }]));
  }

  private requireAdvancedAvailable(): void {
    if (!this.config.advancedWebhooks) throw ConfigErrors.advancedUnavailable();
  }

  private async read(apiKeyId: string): Promise<KeyConfigs> {
    return (await this.keys.configs(apiKeyId)) ?? gone();
  }

  /** Reads the configs locked, lets `next` change some of them, and stores those. */
  private async change(apiKeyId: string, next: (stored: KeyConfigs) => Partial<KeyConfigs>): Promise<Partial<KeyConfigs>> {
    return this.transactions.run(async (manager: EntityManager) => {
      const changed = next((await this.keys.lockConfigs(manager, apiKeyId)) ?? gone());
      await this.keys.saveConfigs(manager, apiKeyId, changed);
      return changed;
    });
  }
}

/** The notification config as sent, its triggers flattened (they may come grouped by feature). */
function flatNotificationConfig(sent: NotificationServiceConfigUpdate | undefined) {
  if (!sent) return undefined;
  const { triggers, ...rest } = sent;
  return { ...rest, ...(triggers !== undefined ? { triggers: flattenTriggers(triggers) } : {}) };
}

/** The guard admitted the key, so its row exists; a missing one means it was deleted meanwhile. */
function gone(): never {
  throw ConfigErrors.keyGone();
}
