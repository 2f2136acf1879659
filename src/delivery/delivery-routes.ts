import type { StoredAdvancedWebhookConfig, StoredEmailConfig, StoredWebhookConfig } from '../workspace/key-configs.js';
import { ADVANCED_RETRY_DELAYS_MS, BASIC_RETRY_DELAYS_MS } from './retry-schedule.js';

/**
 * Delivery channels of the outbox: basic and advanced webhooks; `email_audience`, one per event
 * that may be mailed, which works out who hears of it and queues their mails; `email`, one mail
 * to one user; and `inbox_audience`, one per comment event written with `triggerNotification`,
 * which works out whose inbox gets an entry and writes the entries with its outcome.
 */
export type DeliveryChannel = 'webhook' | 'advanced_webhook' | 'email_audience' | 'email' | 'inbox_audience';

/** The target of an `email_audience` or `inbox_audience` delivery (an `email` delivery's target is the user id). */
export const AUDIENCE_TARGET = 'audience';

/** The two URLs of a key's basic webhook config. */
export type BasicTarget = 'raw' | 'processed';

/** One destination an event goes to. */
export interface Destination {
  channel: DeliveryChannel;
  /** `raw` / `processed` for basic webhooks, the endpoint id for advanced ones. */
  target: string;
  /**
   * Deliveries of one route share a concurrency cap and an order: a slow or hanging receiver
   * holds back only its own route.
   */
  route: string;
  /** Attempts before the delivery is given up: the first plus the channel's retries. */
  maxAttempts: number;
}

/** What decides where a key's events go, read in the transaction of the write. */
export interface RoutingConfig {
  email: StoredEmailConfig;
  webhook: StoredWebhookConfig;
  /** Null until advanced webhooks are first enabled. */
  advanced: StoredAdvancedWebhookConfig | null;
  /** The key's advanced endpoints that are not disabled. */
  endpoints: readonly { id: string; filterTypes: readonly string[] | null }[];
}

export const BASIC_MAX_ATTEMPTS = BASIC_RETRY_DELAYS_MS.length + 1;
export const ADVANCED_MAX_ATTEMPTS = ADVANCED_RETRY_DELAYS_MS.length + 1;
/** Mail (working out the audience, and each mail) and inbox audiences are retried on the full schedule. */
export const EMAIL_MAX_ATTEMPTS = ADVANCED_MAX_ATTEMPTS;

export function basicRoute(apiKeyId: string, target: BasicTarget): string {
  return `webhook:${apiKeyId}:${target}`;
}

export function advancedRoute(endpointId: string): string {
  return `advanced_webhook:${endpointId}`;
}

/**
 * A key's mails share one route, and its audiences another: one key's flood of mail holds back
 * neither other keys' mail nor its own next events' audiences.
 */
export function emailRoute(apiKeyId: string): string {
  return `email:${apiKeyId}`;
}

export function audienceRoute(apiKeyId: string): string {
  return `email_audience:${apiKeyId}`;
}

/** A key's inbox audiences share one route: a flood of one key's comments holds back no other key's inboxes. */
export function inboxRoute(apiKeyId: string): string {
  return `inbox_audience:${apiKeyId}`;
}

/**
 * Every route a key's deliveries take but its advanced endpoints' (those are per endpoint:
 * `advancedRoute`), with the channel of each. The delivery health counts what waits by route,
 * so a new route of a key's belongs here too.
 */
export function keyRoutes(apiKeyId: string): { channel: DeliveryChannel; route: string }[] {
  return [
    { channel: 'webhook', route: basicRoute(apiKeyId, 'raw') },
    { channel: 'webhook', route: basicRoute(apiKeyId, 'processed') },
    { channel: 'email_audience', route: audienceRoute(apiKeyId) },
    { channel: 'email', route: emailRoute(apiKeyId) },
    { channel: 'inbox_audience', route: inboxRoute(apiKeyId) },
  ];
}

/** The inbox entries of an event (no config switches them on: the writer asks, and preferences choose the users). */
export function inboxDestination(apiKeyId: string): Destination {
  return { channel: 'inbox_audience', target: AUDIENCE_TARGET, route: inboxRoute(apiKeyId), maxAttempts: EMAIL_MAX_ATTEMPTS };
}

/** One mail of an event, to one user. */
export function mailDestination(apiKeyId: string, userId: string): Destination {
  return { channel: 'email', target: userId, route: emailRoute(apiKeyId), maxAttempts: EMAIL_MAX_ATTEMPTS };
}

/**
 * Where an event of `type` goes (contracts 6.3–6.4): each basic URL that is set, when the key's
 * webhook service and the event's trigger are on; each enabled advanced endpoint whose
 * `filterTypes` are absent or name the event, when advanced webhooks are on; its audience, to
 * be mailed, when the key's email service and the event's e-mail trigger are on. Custom action
 * types have no trigger, so only advanced endpoints without `filterTypes` receive them.
 */
export function destinationsOf(apiKeyId: string, type: string, routing: RoutingConfig): Destination[] {
  const destinations: Destination[] = [];
  if (routing.email.useEmailService && routing.email.emailServiceConfig.triggers?.[type] === true) {
    destinations.push({ channel: 'email_audience', target: AUDIENCE_TARGET, route: audienceRoute(apiKeyId), maxAttempts: EMAIL_MAX_ATTEMPTS });
  }
  const { useWebhookService, webhookServiceConfig } = routing.webhook;
  if (useWebhookService && webhookServiceConfig.triggers?.[type] === true) {
    const urls: Record<BasicTarget, string> = { raw: webhookServiceConfig.rawNotificationUrl, processed: webhookServiceConfig.processedNotificationUrl };
    for (const target of ['raw', 'processed'] as const) {
      if (urls[target]) destinations.push({ channel: 'webhook', target, route: basicRoute(apiKeyId, target), maxAttempts: BASIC_MAX_ATTEMPTS });
    }
  }
  if (routing.advanced?.isEnabled) {
    for (const endpoint of routing.endpoints) {
      if (endpoint.filterTypes && !endpoint.filterTypes.includes(type)) continue;
      destinations.push({ channel: 'advanced_webhook', target: endpoint.id, route: advancedRoute(endpoint.id), maxAttempts: ADVANCED_MAX_ATTEMPTS });
    }
  }
  return destinations;
}
