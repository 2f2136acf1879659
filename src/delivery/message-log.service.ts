import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { PageTokens } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { ConfigErrors } from '../configs/configs.errors.js';
import { ConfigsService } from '../configs/configs.service.js';
import { WebhookEndpointStore } from '../configs/webhook-endpoint-store.js';
import { Transactions } from '../database/transactions.js';
import { DeliveryWorker } from './delivery-worker.js';
import { ADVANCED_MAX_ATTEMPTS, advancedRoute } from './delivery-routes.js';
import {
  toMessageEntry,
  type ListMessagesRequest,
  type MessageEntry,
  type RecoverMessagesRequest,
  type RetryMessageRequest,
  type TestMessageRequest,
} from './dto/messages.dto.js';
import type { OutboxEvent } from './outbox-event.js';
import { MessageLogStore } from './message-log-store.js';
import { OutboxStore } from './outbox-store.js';
import { MessageErrors } from './delivery.errors.js';

const DEFAULT_LIMIT = 50;
const LIST_OPERATION = 'advancedwebhook/messages/get';

/** Failed deliveries requeued per transaction by a recovery. */
const RECOVER_BATCH = 500;
/** The event type of a test message unless the caller names one. */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * The advanced webhook message log (contract 6.3): every delivery of a message to an endpoint
 * with its attempts, newest message first, and replay of a message.
 */
@Injectable()
export class MessageLogService {
  constructor(
    private readonly store: OutboxStore,
    private readonly log: MessageLogStore,
    private readonly configs: ConfigsService,
    private readonly endpoints: WebhookEndpointStore,
    private readonly transactions: Transactions,
    private readonly pageTokens: PageTokens,
    private readonly worker: DeliveryWorker,
    private readonly clock: Clock,
  ) {}

  async list(principal: ApiKeyPrincipal, request: ListMessagesRequest): Promise<{ messages: MessageEntry[]; iterator: string | null; done: boolean }> {
    const { apiKeyId } = principal;
    await this.configs.requireAdvancedEnabled(apiKeyId);
    const limit = request.limit ?? DEFAULT_LIMIT;
    const filters = { endpointId: request.endpointId ?? null, status: request.status ?? null };
    const after = request.iterator ? this.pageTokens.decode<[string, string]>(apiKeyId, LIST_OPERATION, filters, request.iterator) : undefined;
    const rows = await this.log.list(apiKeyId, 'advanced_webhook', { target: request.endpointId, status: request.status }, after, limit + 1, this.clock.now());
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const more = rows.length > limit;
    return {
      messages: page.map(toMessageEntry),
      iterator: more && last ? this.pageTokens.encode(apiKeyId, LIST_OPERATION, filters, [last.messageId, last.target]) : null,
      done: !more,
    };
  }

  /**
   * Sends again, now, every message made in [`since`, `until`) whose delivery to the endpoint
   * failed (as Svix's recover): one more attempt each, whatever its attempts so far. Runs in
   * batches, each its own transaction, in message order, so each is requeued once however long
   * it takes; the answer says how many.
   */
  async recover(principal: ApiKeyPrincipal, request: RecoverMessagesRequest): Promise<{ endpointId: string; recovered: number }> {
    const { apiKeyId } = principal;
    const { endpointId } = request;
    await this.requireDeliverable(apiKeyId, endpointId);
    const since = Date.parse(request.since);
    const until = request.until === undefined ? this.clock.now() : Date.parse(request.until);
    if (until <= since) throw MessageErrors.windowEmpty();
    let recovered = 0;
    for (let after = ''; ;) {
      const batch = await this.transactions.run(async (manager) => {
        const result = await this.log.requeueFailed(
          manager,
          apiKeyId,
          'advanced_webhook',
          endpointId,
          { since, until, after },
          RECOVER_BATCH,
          this.clock.now(),
        );
        if (result.requeued) this.transactions.afterCommit(manager, () => this.worker.wake([advancedRoute(endpointId)]));
        return result;
      });
      recovered += batch.requeued;
      if (batch.last === undefined) break;
      after = batch.last;
    }
    return { endpointId, recovered };
  }

  /**
   * Queues a test message to one endpoint, whatever its `filterTypes` (as Svix's "send test
   * event"): signed and retried as any other, listed in the message log.
   */
  async sendTest(principal: ApiKeyPrincipal, request: TestMessageRequest): Promise<{ endpointId: string; messageId: string }> {
    const { apiKeyId } = principal;
    const { endpointId } = request;
    await this.requireDeliverable(apiKeyId, endpointId);
    const type = request.eventType ?? TEST_EVENT_TYPE;
    const now = this.clock.now();
    const event: OutboxEvent = {
      type,
      source: 'test',
      key: null,
      organizationId: '',
      documentId: '',
      actionUser: null,
      data: { test: true, message: 'A test message to check that this endpoint receives and verifies deliveries.', sentAt: new Date(now).toISOString() },
    };
    const destination = { channel: 'advanced_webhook' as const, target: endpointId, route: advancedRoute(endpointId), maxAttempts: ADVANCED_MAX_ATTEMPTS };
    const [messageId] = await this.transactions.run(async (manager) => {
      const written = await this.store.append(manager, apiKeyId, [{ event, destinations: [destination] }], now);
      this.transactions.afterCommit(manager, () => this.worker.wake([destination.route]));
      return written;
    });
    return { endpointId, messageId: messageId! };
  }

  /** Advanced webhooks are on and the endpoint exists and is enabled. */
  private async requireDeliverable(apiKeyId: string, endpointId: string): Promise<void> {
    await this.configs.requireAdvancedEnabled(apiKeyId);
    const endpoint = (await this.endpoints.forDelivery([{ apiKeyId, endpointId }])).get(endpointId);
    if (!endpoint) throw ConfigErrors.endpointMissing();
    if (endpoint.disabled) throw MessageErrors.endpointDisabled();
  }

  /**
   * Sends a message again, now, to one endpoint or to every enabled endpoint it went to. A
   * settled delivery gets one more attempt; a pending one is brought forward.
   */
  async retry(principal: ApiKeyPrincipal, request: RetryMessageRequest): Promise<{ messageId: string; endpointIds: string[] }> {
    const { apiKeyId } = principal;
    const { messageId, endpointId } = request;
    if (endpointId === undefined) await this.configs.requireAdvancedEnabled(apiKeyId);
    let targets: string[];
    if (endpointId !== undefined) {
      await this.requireDeliverable(apiKeyId, endpointId);
      targets = [endpointId];
    } else {
      targets = (await this.endpoints.routable(apiKeyId)).map((endpoint) => endpoint.id);
    }
    if (!(await this.log.hasDeliveries(apiKeyId, messageId, 'advanced_webhook', endpointId))) throw MessageErrors.messageMissing();
    const endpointIds = await this.transactions.run(async (manager) => {
      const queued = await this.log.requeue(manager, apiKeyId, messageId, 'advanced_webhook', targets, this.clock.now());
      if (queued.length) this.transactions.afterCommit(manager, () => this.worker.wake());
      return queued;
    });
    return { messageId, endpointIds };
  }
}
