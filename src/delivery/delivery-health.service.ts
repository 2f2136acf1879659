import { Injectable } from '@nestjs/common';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { ConfigsService } from '../configs/configs.service.js';
import { WebhookEndpointStore } from '../configs/webhook-endpoint-store.js';
import { advancedRoute, type DeliveryChannel, keyRoutes } from './delivery-routes.js';
import { MessageLogStore } from './message-log-store.js';

/** How many of a key's deliveries wait (pending: due, scheduled for a retry, or being attempted), in all and by kind. */
export interface OutboxDepth {
  waiting: number;
  advancedWebhook: number;
  webhook: number;
  mail: number;
  inbox: number;
}

/** An advanced endpoint that is failing or disabled (times epoch milliseconds). */
export interface EndpointHealth {
  id: string;
  url: string;
  disabled: boolean;
  failingSince: number | null;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  waiting: number;
}

/** The count of the depth each channel adds to: a record over every channel, so a new one has to choose. */
const DEPTH_OF: Record<DeliveryChannel, Exclude<keyof OutboxDepth, 'waiting'>> = {
  advanced_webhook: 'advancedWebhook',
  webhook: 'webhook',
  // Working out who hears of an event by mail is mail still to go out, as each mail is.
  email_audience: 'mail',
  email: 'mail',
  inbox_audience: 'inbox',
};

/**
 * The console's delivery health (ours, as the other webhook tools): what waits in the caller's
 * outbox, and which of its advanced endpoints are failing or disabled, with their latest attempt
 * and what waits for them. Read only; the reads are not one snapshot (an endpoint made between
 * them is counted on the next look).
 */
@Injectable()
export class DeliveryHealthService {
  constructor(
    private readonly store: MessageLogStore,
    private readonly configs: ConfigsService,
    private readonly endpoints: WebhookEndpointStore,
  ) {}

  async get(principal: ApiKeyPrincipal): Promise<{ outbox: OutboxDepth; endpoints: EndpointHealth[] }> {
    const { apiKeyId } = principal;
    // As every advanced webhook operation: with advanced webhooks off there is no endpoint to show.
    await this.configs.requireAdvancedEnabled(apiKeyId);
    const endpoints = await this.endpoints.healthOf(apiKeyId);
    // Counted by the key's routes (its own, and each endpoint's): only pending deliveries are read.
    const routes = [...keyRoutes(apiKeyId), ...endpoints.map((endpoint) => ({ channel: 'advanced_webhook' as const, route: advancedRoute(endpoint.id) }))];
    const waiting = await this.store.waitingOn(routes.map(({ route }) => route));
    const outbox: OutboxDepth = { waiting: 0, advancedWebhook: 0, webhook: 0, mail: 0, inbox: 0 };
    for (const { channel, route } of routes) {
      const count = waiting.get(route) ?? 0;
      outbox.waiting += count;
      outbox[DEPTH_OF[channel]] += count;
    }
    const troubled = endpoints.filter((endpoint) => endpoint.disabled || endpoint.failingSince !== null);
    const latest = await this.store.lastAttempts(
      apiKeyId,
      'advanced_webhook',
      troubled.map((endpoint) => endpoint.id),
    );
    return {
      outbox,
      endpoints: troubled.map((endpoint) => {
        const attempt = latest.get(endpoint.id);
        return {
          ...endpoint,
          lastAttemptAt: attempt?.attemptedAt ?? null,
          lastStatusCode: attempt?.statusCode ?? null,
          lastError: attempt?.error ?? null,
          waiting: waiting.get(advancedRoute(endpoint.id)) ?? 0,
        };
      }),
    };
  }
}
