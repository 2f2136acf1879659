import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Observers } from '../common/observers.js';
import { newSortableId } from '../common/ids.js';
import { PageTokens } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { ConfigErrors } from './configs.errors.js';
import { ConfigsService } from './configs.service.js';
import { stripUndefined } from '../workspace/key-configs.js';
import type { CreateEndpointRequest, ListEndpointsRequest, UpdateEndpointRequest } from './dto/endpoint.dto.js';
import { WebhookEndpointStore } from './webhook-endpoint-store.js';
import type { EndpointView } from './dto/endpoint.response.js';

/** What other modules learn of endpoint deletions (the outbox stops their deliveries), in the deleting transaction. */
export interface EndpointObserver {
  endpointDeleted(manager: EntityManager, apiKeyId: string, endpointId: string): Promise<void>;
}

/** How long a rotated-out secret still signs, unless the rotation says otherwise (as Svix: a day). */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 60 * 60;

const DEFAULT_LIMIT = 50;
const LIST_OPERATION = 'advancedwebhook/endpoints/get';
type ListCursor = { after: string } | { before: string };

/** A new signing secret: `whsec_` and 24 random bytes. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * Advanced webhook endpoints (contract part 3): every operation needs advanced webhooks on; the
 * server makes each signing secret; deletion is permanent and observers (the outbox) stop the
 * endpoint's deliveries in the deleting transaction. `WebhookEndpointStore` holds the rows.
 */
@Injectable()
export class WebhookEndpointsService {
  readonly observers = new Observers<EndpointObserver>();

  constructor(
    private readonly store: WebhookEndpointStore,
    private readonly transactions: Transactions,
    private readonly pageTokens: PageTokens,
    private readonly configs: ConfigsService,
  ) {}

  async create(principal: ApiKeyPrincipal, request: CreateEndpointRequest): Promise<EndpointView> {
    const { apiKeyId } = principal;
    await this.configs.requireAdvancedEnabled(apiKeyId);
    const id = newSortableId('ep_');
    const inserted = await this.transactions.run((manager) =>
      this.store.insert(
        manager,
        apiKeyId,
        {
          id,
          url: request.url,
          description: request.description ?? null,
          filterTypes: request.filterTypes ?? null,
          channels: request.channels ?? null,
          disabled: request.disabled ?? false,
          rateLimit: request.rateLimit ?? null,
          uid: request.uid ?? null,
          metadata: request.metadata ?? null,
          secret: newSecret(),
        },
        Date.now(),
      ),
    );
    if (!inserted) throw ConfigErrors.endpointUidTaken();
    return this.get(apiKeyId, id);
  }

  /** Pages in creation order; `iterator` continues, `prevIterator` goes back a page. */
  async list(
    principal: ApiKeyPrincipal,
    request: ListEndpointsRequest,
  ): Promise<{ endpoints: EndpointView[]; iterator: string | null; prevIterator: string | null; done: boolean }> {
    const { apiKeyId } = principal;
    await this.configs.requireAdvancedEnabled(apiKeyId);
    const limit = request.limit ?? DEFAULT_LIMIT;
    const cursor = request.iterator ? this.pageTokens.decode<ListCursor>(apiKeyId, LIST_OPERATION, {}, request.iterator) : undefined;
    const backwards = cursor !== undefined && 'before' in cursor;
    const rows = await this.store.page(apiKeyId, cursor === undefined ? undefined : 'before' in cursor ? cursor.before : cursor.after, backwards, limit + 1);
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    if (backwards) page.reverse();
    const first = page[0];
    const last = page[page.length - 1];
    // Going forward, more rows after the page means not done; going back, the page we came from follows.
    const moreAfter = backwards || more;
    const moreBefore = backwards ? more : cursor !== undefined;
    const token = (value: ListCursor) => this.pageTokens.encode(apiKeyId, LIST_OPERATION, {}, value);
    return {
      endpoints: page,
      iterator: last && moreAfter ? token({ after: last.id }) : null,
      prevIterator: first && moreBefore ? token({ before: first.id }) : null,
      done: !moreAfter,
    };
  }

  /** Changes the sent fields; `null` clears an optional one. */
  async update(principal: ApiKeyPrincipal, request: UpdateEndpointRequest): Promise<EndpointView> {
    const { apiKeyId } = principal;
    const { endpointId, ...fields } = request;
    const sent = stripUndefined(fields);
    if (!Object.keys(sent).length) throw ConfigErrors.endpointNothingSent();
    await this.configs.requireAdvancedEnabled(apiKeyId);
    const updated = await this.transactions.run((manager) => this.store.update(manager, apiKeyId, endpointId, sent, Date.now()));
    if (!updated) throw ConfigErrors.endpointMissing();
    return this.get(apiKeyId, endpointId);
  }

  async secret(principal: ApiKeyPrincipal, endpointId: string): Promise<{ endpointId: string; secret: string }> {
    await this.configs.requireAdvancedEnabled(principal.apiKeyId);
    const secret = await this.store.secretOf(principal.apiKeyId, endpointId);
    if (secret === undefined) throw ConfigErrors.endpointMissing();
    return { endpointId, secret };
  }

  /**
   * A new signing secret. The old one keeps signing beside it for `overlapSeconds` (deliveries
   * then carry both signatures, which Standard Webhooks receivers accept either of), so a
   * receiver can switch without missing one; 0 ends it at once. Two rotations at once take
   * turns, and the second's previous secret is the first's new one.
   */
  async rotateSecret(
    principal: ApiKeyPrincipal,
    endpointId: string,
    overlapSeconds = DEFAULT_SECRET_OVERLAP_SECONDS,
  ): Promise<{ endpointId: string; secret: string; previousSecretExpiresAt: string | null }> {
    const { apiKeyId } = principal;
    await this.configs.requireAdvancedEnabled(apiKeyId);
    const secret = newSecret();
    const now = Date.now();
    const until = overlapSeconds > 0 ? now + overlapSeconds * 1000 : null;
    const rotated = await this.transactions.run((manager) => this.store.rotateSecret(manager, apiKeyId, endpointId, secret, until, now));
    if (!rotated) throw ConfigErrors.endpointMissing();
    return { endpointId, secret, previousSecretExpiresAt: until === null ? null : new Date(until).toISOString() };
  }

  /** Permanent: the row and its secret are gone, so nothing further can be signed or sent. */
  async delete(principal: ApiKeyPrincipal, endpointId: string): Promise<{ endpointId: string; deleted: true }> {
    await this.configs.requireAdvancedEnabled(principal.apiKeyId);
    const { apiKeyId } = principal;
    await this.transactions.run(async (manager) => {
      if (!(await this.store.delete(manager, apiKeyId, endpointId))) throw ConfigErrors.endpointMissing();
      await this.observers.notify((observer) => observer.endpointDeleted(manager, apiKeyId, endpointId));
    });
    return { endpointId, deleted: true };
  }

  private async get(apiKeyId: string, id: string): Promise<EndpointView> {
    const endpoint = await this.store.get(apiKeyId, id);
    if (!endpoint) throw ConfigErrors.endpointMissing();
    return endpoint;
  }
}
