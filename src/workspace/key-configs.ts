import type { AccessType } from '../common/access-types.js';
import { defaultTriggers, type Triggers } from '../common/event-catalogue.js';
import type { AttachmentConfig } from './attachment-limits.js';

/** The delivery configs stored on an API key's row (contract part 3). */
export interface KeyConfigs {
  email: StoredEmailConfig;
  webhook: StoredWebhookConfig;
  notification: StoredNotificationConfig;
  /** Null until advanced webhooks are first enabled. */
  advanced: StoredAdvancedWebhookConfig | null;
}

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
  notificationServiceConfig: { triggers?: Triggers; delayConfig?: DelayConfig; batchConfig?: BatchConfig };
}

/** Upstream's notification delay: hold a notification this long before sending it. Stored and answered. */
export interface DelayConfig {
  isEnabled: boolean;
  delaySeconds: number;
}

/** Upstream's batching: gather a document's (or a user's) activities for a window, up to a count. */
export interface BatchWindow {
  isEnabled: boolean;
  batchWindowSeconds: number;
  maxActivities: number;
}

export interface BatchConfig {
  document: BatchWindow;
  user: BatchWindow;
}

/** Upstream's values on a key that never set them. */
export function defaultDelayConfig(): DelayConfig {
  return { isEnabled: false, delaySeconds: 10 };
}

export function defaultBatchConfig(): BatchConfig {
  return { document: { isEnabled: false, batchWindowSeconds: 10, maxActivities: 2 }, user: { isEnabled: false, batchWindowSeconds: 10, maxActivities: 2 } };
}

/** The config as answered: delay and batching with their defaults filled in. */
export function notificationConfigView(stored: StoredNotificationConfig): StoredNotificationConfig {
  const { delayConfig, batchConfig, ...rest } = stored.notificationServiceConfig;
  const batch = defaultBatchConfig();
  return {
    useNotificationService: stored.useNotificationService,
    notificationServiceConfig: {
      ...rest,
      delayConfig: { ...defaultDelayConfig(), ...delayConfig },
      batchConfig: { document: { ...batch.document, ...batchConfig?.document }, user: { ...batch.user, ...batchConfig?.user } },
    },
  };
}

export interface StoredAdvancedWebhookConfig {
  isEnabled: boolean;
  encryptData: boolean;
  encodeData: boolean;
  publicKey: string;
  enableDataProtection: boolean;
}

/** Per-key switches that are not delivery configs. */
export interface KeySettings {
  enablePrivateComments: boolean;
  requireAutoOrgUser: boolean;
  /** Effective accessType of top-level folders and documents that set none (contract part 5). */
  defaultDocumentAccessType: AccessType;
  /** Upstream's switch telling the client SDK to insist on a signed user token; stored and answered. */
  requireJwtToken?: boolean;
  /** AI model keys by provider, encrypted (`Secrets.encrypt`); answered masked, never in clear. */
  aiModelKeysEnc?: Record<string, string>;
  /** Upstream's activity logs configuration (`activityconfig`), once set. */
  activityServiceConfig?: ActivityServiceConfig;
  /** The key's own attachment size and type limits, within the service's; unset: the service's. */
  attachmentConfig?: AttachmentConfig;
}

/**
 * Upstream's activity logs configuration: whether the service records activities of its own
 * from feature events (which ones: `triggers`), and whether records are immutable
 * (`keepsCommentEvent`, `addsImmutableRecords`).
 */
export interface ActivityServiceConfig {
  isEnabled: boolean;
  immutable?: boolean;
  /** Epoch ms when activity logging was first enabled (or as the caller set it). */
  enabledTime?: number;
  /** Event types by feature group; upstream supports only `comment`. */
  triggers?: { comment?: Record<string, boolean> };
}

/**
 * Whether a comment event is kept in the activity log when its write asks for it
 * (`triggerActivities`): with no activity config, always; with one, only while it is enabled and
 * its trigger for the event type is not off (upstream's native recording follows the same config).
 */
export function keepsCommentEvent(config: ActivityServiceConfig | undefined, actionType: string): boolean {
  return config === undefined || (config.isEnabled && config.triggers?.comment?.[actionType] !== false);
}

/** Whether records added now are immutable (activities update and delete refuse them). */
export function addsImmutableRecords(config: ActivityServiceConfig | undefined): boolean {
  return config?.immutable === true;
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

export interface WebhookConfigChange {
  useWebhookService?: boolean;
  webhookServiceConfig?: Partial<StoredWebhookConfig['webhookServiceConfig']>;
}

export interface NotificationConfigChange {
  useNotificationService?: boolean;
  notificationServiceConfig?: {
    triggers?: Triggers;
    delayConfig?: Partial<DelayConfig>;
    batchConfig?: { document?: Partial<BatchWindow>; user?: Partial<BatchWindow> };
  };
}

export interface ChangeOptions {
  /** `false` (key creation with `setDefault*Triggers: false`) enables without seeding triggers. */
  seedTriggers?: boolean;
}

/**
 * The email-config update rule (rest-interface part 3): partial update over the stored config;
 * when no triggers are stored yet and the change enables the service or sets type `custom`,
 * the defaults (type `custom`, default triggers, service on) are seeded first and the request
 * merged over them.
 */
export function applyEmailConfigChange(stored: StoredEmailConfig, change: EmailConfigChange, options: ChangeOptions = {}): StoredEmailConfig {
  const firstEnable = change.useEmailService === true || change.emailServiceConfig?.type === 'custom';
  const next = mergeServiceChange(
    { use: stored.useEmailService, config: stored.emailServiceConfig },
    { use: change.useEmailService, config: change.emailServiceConfig },
    firstEnable && options.seedTriggers !== false,
    (seeded) => {
      seeded.use = true;
      seeded.config.type = 'custom';
    },
  );
  return { useEmailService: next.use, emailServiceConfig: next.config };
}

/** The same first-enable rule for the basic webhook config (contract part 3). */
export function applyWebhookConfigChange(stored: StoredWebhookConfig, change: WebhookConfigChange, options: ChangeOptions = {}): StoredWebhookConfig {
  const seed = change.useWebhookService === true && options.seedTriggers !== false;
  const next = mergeServiceChange(
    { use: stored.useWebhookService, config: stored.webhookServiceConfig },
    { use: change.useWebhookService, config: change.webhookServiceConfig },
    seed,
  );
  return { useWebhookService: next.use, webhookServiceConfig: next.config };
}

/** The same first-enable rule for the notification config (contract part 3). */
export function applyNotificationConfigChange(
  stored: StoredNotificationConfig,
  change: NotificationConfigChange,
  options: ChangeOptions = {},
): StoredNotificationConfig {
  const seed = change.useNotificationService === true && options.seedTriggers !== false;
  // Delay and batching merge field by field (upstream: "omitted sub-fields are preserved").
  const { delayConfig, batchConfig, ...rest } = change.notificationServiceConfig ?? {};
  const current = notificationConfigView(stored).notificationServiceConfig;
  const merged = {
    ...rest,
    ...(delayConfig ? { delayConfig: { ...current.delayConfig!, ...stripUndefined(delayConfig) } } : {}),
    ...(batchConfig
      ? {
          batchConfig: {
            document: { ...current.batchConfig!.document, ...stripUndefined(batchConfig.document ?? {}) },
            user: { ...current.batchConfig!.user, ...stripUndefined(batchConfig.user ?? {}) },
          },
        }
      : {}),
  };
  const next = mergeServiceChange(
    { use: stored.useNotificationService, config: stored.notificationServiceConfig },
    { use: change.useNotificationService, config: change.notificationServiceConfig ? merged : undefined },
    seed,
  );
  return { useNotificationService: next.use, notificationServiceConfig: next.config };
}

interface ServiceState<C> {
  use: boolean;
  config: C;
}

/**
 * The shared core of the three rules: seed the defaults once (only while no triggers are stored),
 * then apply the sent fields over the result; sent triggers merge key by key.
 */
function mergeServiceChange<C extends { triggers?: Triggers }>(
  stored: ServiceState<C>,
  change: { use?: boolean; config?: Partial<C> },
  seed: boolean,
  seedMore?: (state: ServiceState<C>) => void,
): ServiceState<C> {
  const next: ServiceState<C> = { use: stored.use, config: { ...stored.config } };
  if (seed && next.config.triggers === undefined) {
    next.config.triggers = defaultTriggers();
    seedMore?.(next);
  }
  if (change.use !== undefined) next.use = change.use;
  const { triggers, ...fields } = change.config ?? {};
  Object.assign(next.config, stripUndefined(fields));
  if (triggers !== undefined) next.config.triggers = { ...next.config.triggers, ...triggers };
  return next;
}

/** The fields that were sent: `undefined` ones dropped. */
export function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
