import { Injectable } from '@nestjs/common';
import { Secrets } from '../common/secrets.js';
import type { Triggers } from '../common/event-catalogue.js';
import type { EmailConfigChange, StoredEmailConfig, StoredWebhookConfig, WebhookConfigChange } from './key-configs.js';

/** E-mail service fields as callers send them (key creation and config update). */
export interface EmailConfigInput {
  type?: 'default' | 'thirdparty' | 'sendgrid' | 'custom';
  apiKey?: string;
  fromEmail?: string;
  fromCompany?: string;
  commentTemplateId?: string;
  tagTemplateId?: string;
  triggers?: Triggers;
}

/** Basic webhook fields as callers send them. */
export interface WebhookConfigInput {
  authToken?: string;
  rawNotificationUrl?: string;
  processedNotificationUrl?: string;
  encodeData?: boolean;
  encryptData?: boolean;
  publicKey?: string;
  enableDataProtection?: boolean;
  triggers?: Triggers;
}

/**
 * Between the configs callers send and read and the configs stored on the key: secrets are
 * encrypted on the way in and returned as they were set on the way out (contract part 3), and
 * `sendgrid` is stored as `thirdparty`. Key creation and the config updates both come here.
 */
@Injectable()
export class ConfigCodec {
  constructor(private readonly secrets: Secrets) {}

  emailChange(useEmailService: boolean | undefined, input: EmailConfigInput | undefined): EmailConfigChange {
    if (!input) return { useEmailService };
    const { type, apiKey, ...rest } = input;
    return {
      useEmailService,
      emailServiceConfig: { ...rest, type: type === 'sendgrid' ? 'thirdparty' : type, apiKeyEnc: this.sealed(apiKey) },
    };
  }

  webhookChange(useWebhookService: boolean | undefined, input: WebhookConfigInput | undefined): WebhookConfigChange {
    if (!input) return { useWebhookService };
    const { authToken, ...rest } = input;
    return { useWebhookService, webhookServiceConfig: { ...rest, authTokenEnc: this.sealed(authToken) } };
  }

  emailView(stored: StoredEmailConfig) {
    const { type, apiKeyEnc, ...rest } = stored.emailServiceConfig;
    return { useEmailService: stored.useEmailService, emailServiceConfig: { type, apiKey: this.opened(apiKeyEnc), ...rest } };
  }

  webhookView(stored: StoredWebhookConfig) {
    const { authTokenEnc, ...rest } = stored.webhookServiceConfig;
    return { useWebhookService: stored.useWebhookService, webhookServiceConfig: { authToken: this.opened(authTokenEnc), ...rest } };
  }

  /** Ciphertext of a sent secret; `''` clears it; absent stays absent. */
  private sealed(secret: string | undefined): string | undefined {
    if (secret === undefined) return undefined;
    return secret === '' ? '' : this.secrets.encrypt(secret);
  }

  private opened(stored: string): string {
    return stored === '' ? '' : this.secrets.decrypt(stored);
  }
}
