import { defaultTriggers, type Triggers } from '../events/event-catalogue.js';

/**
 * Stored delivery configs of an API key (contract part 3). Secret fields (`apiKeyEnc`,
 * `authTokenEnc`) hold ciphertext from `Secrets.encrypt`, '' when unset.
 */
export interface StoredEmailConfig {
  useEmailService: boolean;
  emailServiceConfig: {
    type: EmailServiceType;
    apiKeyEnc: string;
    fromEmail: string;
    fromCompany: string;
    commentTemplateId: string;
    tagTemplateId: string;
    triggers?: Triggers;
  };
}

export type EmailServiceType = 'default' | 'thirdparty' | 'custom';

export interface StoredWebhookConfig {
  useWebhookService: boolean;
  webhookServiceConfig: {
    authTokenEnc: string;
    rawNotificationUrl: string;
    processedNotificationUrl: string;
    encodeData: boolean;
    encryptData: boolean;
    publicKey: string;
    enableDataProtection: boolean;
    triggers?: Triggers;
  };
}

export interface StoredNotificationConfig {
  useNotificationService: boolean;
  notificationServiceConfig: { triggers?: Triggers };
}

export interface StoredAdvancedWebhookConfig {
  isEnabled: boolean;
  encryptData: boolean;
  encodeData: boolean;
  publicKey: string;
  enableDataProtection: boolean;
}

export type AccessType = 'public' | 'organizationPrivate' | 'restricted';

/** Per-key switches that are not delivery configs. */
export interface KeySettings {
  enablePrivateComments: boolean;
  requireAutoOrgUser: boolean;
  /** Effective accessType of top-level folders and documents that set none (contract part 5). */
  defaultDocumentAccessType: AccessType;
}

export function neverConfiguredEmail(): StoredEmailConfig {
  return {
    useEmailService: false,
    emailServiceConfig: { type: 'default', apiKeyEnc: '', fromEmail: '', fromCompany: '', commentTemplateId: '', tagTemplateId: '' },
  };
}

export function neverConfiguredWebhook(): StoredWebhookConfig {
  return {
    useWebhookService: false,
    webhookServiceConfig: {
      authTokenEnc: '',
      rawNotificationUrl: '',
      processedNotificationUrl: '',
      encodeData: false,
      encryptData: false,
      publicKey: '',
      enableDataProtection: false,
    },
  };
}

export function neverConfiguredNotification(): StoredNotificationConfig {
  return { useNotificationService: false, notificationServiceConfig: {} };
}

export function defaultKeySettings(): KeySettings {
  return { enablePrivateComments: false, requireAutoOrgUser: false, defaultDocumentAccessType: 'public' };
}

/** An email-config change, secrets already encrypted. */
export interface EmailConfigChange {
  useEmailService?: boolean;
  emailServiceConfig?: Partial<StoredEmailConfig['emailServiceConfig']>;
}

/**
 * The email-config update rule (rest-interface part 3): partial update over the stored config;
 * when no triggers are stored yet and the change enables the service or sets type `custom`,
 * the defaults (type `custom`, default triggers, service on) are seeded first and the request
 * merged over them. `seedTriggers: false` (API key creation with `setDefaultEmailTriggers:
 * false`) enables without seeding.
 */
export function applyEmailConfigChange(stored: StoredEmailConfig, change: EmailConfigChange, options: { seedTriggers?: boolean } = {}): StoredEmailConfig {
  const next: StoredEmailConfig = { useEmailService: stored.useEmailService, emailServiceConfig: { ...stored.emailServiceConfig } };
  const firstEnable =
    next.emailServiceConfig.triggers === undefined && (change.useEmailService === true || change.emailServiceConfig?.type === 'custom');
  if (firstEnable && options.seedTriggers !== false) {
    next.useEmailService = true;
    next.emailServiceConfig.type = 'custom';
    next.emailServiceConfig.triggers = defaultTriggers();
  }
  if (change.useEmailService !== undefined) next.useEmailService = change.useEmailService;
  const { triggers, ...fields } = change.emailServiceConfig ?? {};
  Object.assign(next.emailServiceConfig, stripUndefined(fields));
  if (triggers !== undefined) next.emailServiceConfig.triggers = { ...next.emailServiceConfig.triggers, ...triggers };
  return next;
}

export interface WebhookConfigChange {
  useWebhookService?: boolean;
  webhookServiceConfig?: Partial<StoredWebhookConfig['webhookServiceConfig']>;
}

/** The same first-enable rule for the basic webhook config (contract part 3). */
export function applyWebhookConfigChange(stored: StoredWebhookConfig, change: WebhookConfigChange, options: { seedTriggers?: boolean } = {}): StoredWebhookConfig {
  const next: StoredWebhookConfig = { useWebhookService: stored.useWebhookService, webhookServiceConfig: { ...stored.webhookServiceConfig } };
  if (next.webhookServiceConfig.triggers === undefined && change.useWebhookService === true && options.seedTriggers !== false) {
    next.webhookServiceConfig.triggers = defaultTriggers();
  }
  if (change.useWebhookService !== undefined) next.useWebhookService = change.useWebhookService;
  const { triggers, ...fields } = change.webhookServiceConfig ?? {};
  Object.assign(next.webhookServiceConfig, stripUndefined(fields));
  if (triggers !== undefined) next.webhookServiceConfig.triggers = { ...next.webhookServiceConfig.triggers, ...triggers };
  return next;
}

export interface NotificationConfigChange {
  useNotificationService?: boolean;
  notificationServiceConfig?: { triggers?: Triggers };
}

/** The same first-enable rule for the notification config (contract part 3). */
export function applyNotificationConfigChange(
  stored: StoredNotificationConfig,
  change: NotificationConfigChange,
  options: { seedTriggers?: boolean } = {},
): StoredNotificationConfig {
  const next: StoredNotificationConfig = {
    useNotificationService: stored.useNotificationService,
    notificationServiceConfig: { ...stored.notificationServiceConfig },
  };
  if (next.notificationServiceConfig.triggers === undefined && change.useNotificationService === true && options.seedTriggers !== false) {
    next.notificationServiceConfig.triggers = defaultTriggers();
  }
  if (change.useNotificationService !== undefined) next.useNotificationService = change.useNotificationService;
  const triggers = change.notificationServiceConfig?.triggers;
  if (triggers !== undefined) next.notificationServiceConfig.triggers = { ...next.notificationServiceConfig.triggers, ...triggers };
  return next;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
