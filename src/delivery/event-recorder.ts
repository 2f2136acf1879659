import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ActivityStore, type Activity, type ActivityObserver, type ActivityWrite } from '../activity/activity-store.js';
import { Clock } from '../common/clock.js';
import { ConfigsService } from '../configs/configs.service.js';
import { WebhookEndpointStore } from '../configs/webhook-endpoint-store.js';
import { WebhookEndpointsService, type EndpointObserver } from '../configs/webhook-endpoints.service.js';
import { CrdtStore, type CrdtObserver, type StoredEditor } from '../crdt/crdt-store.js';
import { Transactions } from '../database/transactions.js';
import { advancedRoute, destinationsOf, inboxDestination, type RoutingConfig } from './delivery-routes.js';
import { DeliveryWorker } from './delivery-worker.js';
import { CRDT_EVENTS } from '../common/event-catalogue.js';
import { activityEvent, crdtEvent, type OutboxEvent } from './outbox-event.js';
import { OutboxStore } from './outbox-store.js';

/**
 * Turns writes into events in the outbox (contract 6.2–6.3), inside the writing transaction:
 * an activity added or a CRDT write commits with its deliveries, or neither does. Where an event
 * goes is decided here, from the key's configs as the transaction reads them; a key with nothing
 * switched on writes nothing. Once the transaction commits, the local worker is woken.
 */
@Injectable()
export class EventRecorder implements ActivityObserver, CrdtObserver, EndpointObserver, OnModuleInit {
  constructor(
    private readonly activities: ActivityStore,
    private readonly crdt: CrdtStore,
    private readonly endpoints: WebhookEndpointsService,
    private readonly endpointStore: WebhookEndpointStore,
    private readonly configs: ConfigsService,
    private readonly store: OutboxStore,
    private readonly transactions: Transactions,
    private readonly worker: DeliveryWorker,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.activities.observers.add(this);
    this.crdt.observers.add(this);
    this.endpoints.observers.add(this);
  }

  /** Every activity added is an event (updates are not, nor quiet writes). */
  async activitiesWritten(manager: EntityManager, apiKeyId: string, activities: Activity[], write: ActivityWrite): Promise<void> {
    if (write.added && !write.quiet) await this.recordActivities(manager, apiKeyId, activities);
  }

  /**
   * Activities as events, whether or not the log keeps them (comment writes asking for
   * notifications record theirs here). With `inbox`, each also goes to the inbox audience, which
   * the worker turns into inbox entries; `fresh`: activities just made, never recorded before.
   */
  async recordActivities(manager: EntityManager, apiKeyId: string, activities: Activity[], options: { inbox?: boolean; fresh?: boolean } = {}): Promise<void> {
    await this.record(
      manager,
      apiKeyId,
      activities.map((activity) => ({ type: activity.actionType, event: () => activityEvent(activity) })),
      { inbox: options.inbox === true, fresh: options.fresh === true },
    );
  }

  async activitiesDeleted(): Promise<void> {
    // Deleting history is not an event of the catalogue.
  }

  /**
   * Every CRDT write is a `crdt.update_data` event per user whose edits it stores (a live room's
   * store carries several users' typing: each is told as the editor's `lastUpdatedBy`).
   */
  async crdtWritten(manager: EntityManager, apiKeyId: string, editor: StoredEditor, writers: readonly (string | null)[]): Promise<void> {
    await this.record(
      manager,
      apiKeyId,
      writers.map((lastUpdatedBy) => ({ type: CRDT_EVENTS[0], event: () => crdtEvent(apiKeyId, { ...editor, lastUpdatedBy }) })),
    );
  }

  /** A deleted endpoint gets nothing more, retries included; attempts in flight are aborted. */
  async endpointDeleted(manager: EntityManager, _apiKeyId: string, endpointId: string): Promise<void> {
    await this.store.cancelRoute(manager, advancedRoute(endpointId), 'The endpoint was deleted.', this.clock.now());
    this.transactions.afterCommit(manager, () => this.worker.abortRoute(advancedRoute(endpointId)));
  }

  /**
   * Writes the events that have somewhere to go (with `inbox`, every one does); `event` builds
   * one only then. `fresh`: none was recorded before (see `OutboxStore.append`).
   */
  private async record(
    manager: EntityManager,
    apiKeyId: string,
    items: { type: string; event: () => OutboxEvent }[],
    { inbox = false, fresh = false }: { inbox?: boolean; fresh?: boolean } = {},
  ): Promise<void> {
    const routing = await this.routing(apiKeyId);
    if (!routing && !inbox) return;
    const entries = items.flatMap((item) => {
      const destinations = [...(routing ? destinationsOf(apiKeyId, item.type, routing) : []), ...(inbox ? [inboxDestination(apiKeyId)] : [])];
      return destinations.length ? [{ event: item.event(), destinations }] : [];
    });
    if (!entries.length) return;
    const written = await this.store.append(manager, apiKeyId, entries, this.clock.now(), { fresh });
    if (!written.length) return;
    const routes = new Set(entries.flatMap((entry) => entry.destinations.map((destination) => destination.route)));
    this.transactions.afterCommit(manager, () => this.worker.wake(routes));
  }

  /** The key's routing, or `undefined` when neither mail nor webhooks of either kind are on (the common case: one read). */
  private async routing(apiKeyId: string): Promise<RoutingConfig | undefined> {
    const configs = (await this.configs.storedConfigs([apiKeyId])).get(apiKeyId);
    if (!configs) return undefined;
    const advancedOn = configs.advanced?.isEnabled === true;
    if (!configs.webhook.useWebhookService && !advancedOn && !configs.email.useEmailService) return undefined;
    return {
      email: configs.email,
      webhook: configs.webhook,
      advanced: configs.advanced,
      endpoints: advancedOn ? await this.endpointStore.routable(apiKeyId) : [],
    };
  }
}
