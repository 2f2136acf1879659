import { Injectable } from '@nestjs/common';
import { ConfigCodec } from '../workspace/config-codec.js';
import type { KeyConfigs } from '../workspace/key-configs.js';
import type { DeliveryEndpoint } from '../configs/webhook-endpoint-store.js';
import type { AttemptResult } from './delivery-outcome.js';
import type { DeliveryContext, Released } from './delivery-context.js';
import { NotificationRecipients } from './notification-recipients.js';
import type { ClaimedDelivery } from './outbox-store.js';
import { advancedPayload, basicPayload, signature, wirePayload } from './webhook-payloads.js';
import { WebhookHttp, type Cancellation } from './webhook-http.js';

/**
 * Makes one attempt at a webhook delivery (contract 6.3): the body for its kind, the payload
 * options, the credentials (basic `Authorization`, or Standard Webhooks signature headers), and
 * the POST. Destinations that are gone or switched off settle without a request.
 */
@Injectable()
export class WebhookSender {
  constructor(
    private readonly http: WebhookHttp,
    private readonly codec: ConfigCodec,
    private readonly recipients: NotificationRecipients,
  ) {}

  /**
   * One attempt; `latestStart` (`performance.now()`) is when the request must have started for
   * its claim to outlast it.
   */
  async attempt(
    delivery: ClaimedDelivery,
    configs: KeyConfigs,
    context: DeliveryContext,
    latestStart: number,
    cancellation?: Cancellation,
  ): Promise<AttemptResult | Released> {
    return delivery.channel === 'webhook'
      ? this.basic(delivery, configs, latestStart, cancellation)
      : this.advanced(delivery, configs, context.endpoint, latestStart, cancellation);
  }

  private async basic(delivery: ClaimedDelivery, configs: KeyConfigs, latestStart: number, cancellation?: Cancellation): Promise<AttemptResult | Released> {
    const { useWebhookService, webhookServiceConfig } = this.codec.webhookView(configs.webhook);
    if (!useWebhookService) return { sent: false, status: 'cancelled', reason: 'The webhook service is off.' };
    const processed = delivery.target === 'processed';
    const url = processed ? webhookServiceConfig.processedNotificationUrl : webhookServiceConfig.rawNotificationUrl;
    if (!url) return { sent: false, status: 'cancelled', reason: `No ${delivery.target} notification URL is set.` };
    // Working out who to notify reads the database: it may take long enough to eat the lease.
    const notifyUsers = processed ? await this.recipients.of(delivery.apiKeyId, delivery.event) : undefined;
    if (performance.now() > latestStart) return { released: true };
    const body = wirePayload(basicPayload(delivery.messageId, delivery.apiKeyId, delivery.event, notifyUsers), webhookServiceConfig);
    const headers: Record<string, string> = webhookServiceConfig.authToken ? { authorization: `Basic ${webhookServiceConfig.authToken}` } : {};
    return { sent: true, ...(await this.http.post(url, headers, body, cancellation, { keepAnswer: 'all' })) };
  }

  private async advanced(
    delivery: ClaimedDelivery,
    configs: KeyConfigs,
    endpoint: DeliveryEndpoint | undefined,
    latestStart: number,
    cancellation?: Cancellation,
  ): Promise<AttemptResult | Released> {
    if (!configs.advanced?.isEnabled) return { sent: false, status: 'failed', reason: 'Advanced webhooks are disabled for this workspace.' };
    if (!endpoint) return { sent: false, status: 'cancelled', reason: 'The endpoint was deleted.' };
    if (endpoint.disabled) return { sent: false, status: 'failed', reason: 'The endpoint is disabled.' };
    if (performance.now() > latestStart) return { released: true };
    const body = wirePayload(advancedPayload(delivery.messageId, delivery.event), configs.advanced);
    // Seconds of the wall clock, per attempt: receivers check it against their own clocks.
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': delivery.messageId,
      'webhook-timestamp': String(timestamp),
      // During a rotation's overlap both secrets sign (space-separated, as Standard Webhooks
      // allows): a receiver holding either verifies.
      'webhook-signature': [endpoint.secret, ...(endpoint.previousSecret ? [endpoint.previousSecret] : [])]
        .map((secret) => signature(secret, delivery.messageId, timestamp, body))
        .join(' '),
    };
    return { sent: true, ...(await this.http.post(endpoint.url, headers, body, cancellation, { keepAnswer: 'all' })) };
  }
}
