import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors.js';
import { Clock } from '../common/clock.js';
import { PageTokens } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { ConfigErrors } from '../configs/configs.errors.js';
import { ConfigsService } from '../configs/configs.service.js';
import { WebhookEndpointsService } from '../configs/webhook-endpoints.service.js';
import { Transactions } from '../database/transactions.js';
import { DeliveryWorker } from './delivery-worker.js';
import { toMessageEntry, type ListMessagesRequest, type MessageEntry, type RetryMessageRequest } from './dto/messages.dto.js';
import { OutboxStore } from './outbox-store.js';

const DEFAULT_LIMIT = 50;
const LIST_OPERATION = 'advancedwebhook/messages/get';

export const MessageErrors = {
  messageMissing: () => new ApiError('NOT_FOUND', 'Advanced webhook message not found.'),
  endpointDisabled: () => new ApiError('FAILED_PRECONDITION', 'The advanced webhook endpoint is disabled.'),
};

/**
 * The advanced webhook message log (contract 6.3): every delivery of a message to an endpoint
 * with its attempts, newest message first, and replay of a message.
 */
@Injectable()
export class MessageLogService {
  constructor(
    private readonly store: OutboxStore,
    private readonly configs: ConfigsService,
    private readonly endpoints: WebhookEndpointsService,
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
    const rows = await this.store.list(
      apiKeyId,
      'advanced_webhook',
      { target: request.endpointId, status: request.status },
      after,
      limit + 1,
      this.clock.now(),
    );
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
   * Sends a message again, now, to one endpoint or to every enabled endpoint it went to. A
   * settled delivery gets one more attempt; a pending one is brought forward.
   */
  async retry(principal: ApiKeyPrincipal, request: RetryMessageRequest): Promise<{ messageId: string; endpointIds: string[] }> {
    const { apiKeyId } = principal;
    const { messageId, endpointId } = request;
    await this.configs.requireAdvancedEnabled(apiKeyId);
    let targets: string[];
    if (endpointId !== undefined) {
      const endpoint = (await this.endpoints.forDelivery([{ apiKeyId, endpointId }])).get(endpointId);
      if (!endpoint) throw ConfigErrors.endpointMissing();
      if (endpoint.disabled) throw MessageErrors.endpointDisabled();
      targets = [endpointId];
    } else {
      targets = (await this.endpoints.routable(apiKeyId)).map((endpoint) => endpoint.id);
    }
    if (!(await this.store.hasDeliveries(apiKeyId, messageId, 'advanced_webhook', endpointId))) throw MessageErrors.messageMissing();
    const endpointIds = await this.transactions.run(async (manager) => {
      const queued = await this.store.requeue(manager, apiKeyId, messageId, 'advanced_webhook', targets, this.clock.now());
      if (queued.length) this.transactions.afterCommit(manager, () => this.worker.wake());
      return queued;
    });
    return { messageId, endpointIds };
  }
}
