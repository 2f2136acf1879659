import type { Logger } from '@nestjs/common';
import type { Clock } from '../common/clock.js';
import type { Metrics } from '../common/metrics.js';
import type { WebhookEndpointStore } from '../configs/webhook-endpoint-store.js';
import type { Transactions, WorkerConnection } from '../database/transactions.js';
import type { DeliverySenders } from './delivery-senders.js';
import type { ClaimedDelivery, DeliveryOutcome, OutboxStore } from './outbox-store.js';

/** How long a failed outcome write waits before it is tried again. */
const RETRY_MS = 1000;

/** What the worker does when outcomes are written (it holds the claims and the queues). */
export interface OutcomeHooks {
  /** The outcome of `delivery` is written: its claim is over and its slot free. */
  written(delivery: ClaimedDelivery): void;
  /** Deliveries an outcome leads to (an audience's mails) are due on these routes. */
  followUpsDue(routes: Set<string>): void;
  /** An advanced endpoint was disabled by an outcome: what is queued for it goes back. */
  endpointDisabled(endpointId: string): void;
}

/** What the delivery worker's outcome writer needs of the service. */
export interface OutcomeWriterDeps {
  store: OutboxStore;
  senders: DeliverySenders;
  endpoints: WebhookEndpointStore;
  transactions: Transactions;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
}

/**
 * The delivery worker's settling half: writes attempts' outcomes in batches, each batch one unit
 * of work with the endpoints' health and what the senders do on settling (an audience's mails,
 * inbox entries), counts them for the metrics and the periodic counters line. One writer at a
 * time keeps the outcomes of one delivery in order.
 */
export class OutcomeWriter {
  /**
   * Outcomes written, by kind; and claims handed back because they could not start in time
   * (`handedBack`: more than a few means the worker claims more than it can run).
   */
  readonly counters = { succeeded: 0, retried: 0, failed: 0, cancelled: 0, endpointsDisabled: 0, handedBack: 0 };
  /** Outcomes waiting to be written, each with what frees its attempt's slot once it is. */
  private readonly waiting: { outcome: DeliveryOutcome; recorded: () => void }[] = [];
  private writing: Promise<void> | undefined;
  /** Cancels the write scheduled to come (on the next turn of the event loop, or a retry), if any. */
  private cancelScheduled: (() => void) | undefined;
  private reported = '';
  /** The report under way, if any (see `report`). */
  private reporting: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: OutcomeWriterDeps,
    private readonly connection: () => WorkerConnection | undefined,
    private readonly hooks: OutcomeHooks,
  ) {}

  /**
   * Queues an outcome to be written; resolves once it is. The write starts at once when none is
   * under way (on the next turn of the event loop, so outcomes arriving together share it);
   * outcomes arriving during a write share the next one. No waiting for company: every
   * millisecond an answered attempt waits for its record, it holds its slot. Hence
   * `setImmediate`, not `setTimeout(0)`, which Node makes at least 1 ms: with it, an embedded
   * database delivered 6,817-7,204/s to one prompt receiver (16 attempts at once), with
   * `setImmediate` 9,247-9,840/s (`npm run bench`, deliveries).
   */
  settleSoon(outcome: DeliveryOutcome): Promise<void> {
    return new Promise((recorded) => {
      this.waiting.push({ outcome, recorded });
      this.schedule(0);
    });
  }

  /** Schedules a write `ms` from now (0: on the next turn of the event loop), unless one is already coming. */
  private schedule(ms: number): void {
    if (this.cancelScheduled) return;
    if (ms === 0) {
      const immediate = setImmediate(() => void this.settleNow());
      this.cancelScheduled = () => clearImmediate(immediate);
    } else {
      const timeout = setTimeout(() => void this.settleNow(), ms);
      this.cancelScheduled = () => clearTimeout(timeout);
    }
  }

  private cancelSchedule(): void {
    this.cancelScheduled?.();
    this.cancelScheduled = undefined;
  }

  /** Writes the waiting outcomes in one unit of work; on failure they wait for the next try. */
  async settleNow(): Promise<void> {
    this.cancelSchedule();
    while (this.writing) await this.writing;
    const batch = this.waiting.splice(0);
    if (!batch.length) return;
    this.writing = this.write(batch).finally(() => (this.writing = undefined));
    await this.writing;
  }

  /** Counts claims handed back because they could not start in time. */
  handedBack(count: number): void {
    this.counters.handedBack += count;
  }

  /** Cancels the scheduled write (shutdown writes what waits with a last `settleNow`). */
  stop(): void {
    this.cancelSchedule();
  }

  /**
   * Reports one after another: the last one, at shutdown, waits for a periodic one under way
   * (it reads the outbox's depth), so no counters line comes after the exit line.
   */
  report(state: () => { inFlight: number; queued: number }): Promise<void> {
    this.reporting = this.reporting.then(() => this.reportNow(state()));
    return this.reporting;
  }

  private async write(waiting: { outcome: DeliveryOutcome; recorded: () => void }[]): Promise<void> {
    const { store, senders, endpoints, transactions, clock, logger } = this.deps;
    const batch = waiting.map((item) => item.outcome);
    try {
      const { disabled, followUpRoutes } = await transactions.run(async (manager) => {
        // One lock order with endpoint writes: the rows of the endpoints whose health this batch
        // may record (in id order, so instances settling at once cannot deadlock on them either),
        // then the deliveries. Deleting an endpoint locks its row before its deliveries; taken
        // the other way round here, the two deadlocked.
        const attempted = batch.filter((outcome) => outcome.attempted && outcome.delivery.channel === 'advanced_webhook');
        const failing = await endpoints.lockForHealth(
          manager,
          attempted.map((outcome) => ({ apiKeyId: outcome.delivery.apiKeyId, endpointId: outcome.delivery.target })),
        );
        const written = await store.settle(manager, batch, clock.now());
        await senders.settled(manager, written);
        // An endpoint's health follows its latest attempt in the batch.
        const latest = new Map<string, DeliveryOutcome>();
        for (const outcome of written) if (outcome.attempted && outcome.delivery.channel === 'advanced_webhook') latest.set(outcome.delivery.target, outcome);
        const disabledNow: string[] = [];
        for (const [endpointId, outcome] of [...latest].sort(([a], [b]) => (a < b ? -1 : 1))) {
          if (
            await endpoints.recordHealth(
              manager,
              outcome.delivery.apiKeyId,
              endpointId,
              {
                succeeded: outcome.status === 'succeeded',
                gone: outcome.gone,
                at: outcome.attemptedAt,
              },
              failing,
            )
          )
            disabledNow.push(endpointId);
        }
        for (const outcome of written) this.count(outcome);
        const routes = new Set(written.flatMap((outcome) => (outcome.followUps ?? []).map((destination) => destination.route)));
        return { disabled: disabledNow, followUpRoutes: routes };
      }, this.connection());
      for (const { outcome, recorded } of waiting) {
        this.hooks.written(outcome.delivery);
        recorded();
      }
      if (followUpRoutes.size) this.hooks.followUpsDue(followUpRoutes);
      for (const endpointId of disabled) {
        this.counters.endpointsDisabled++;
        logger.warn({ endpointId }, 'Advanced webhook endpoint disabled (410 Gone, or failing for 5 days)');
        this.hooks.endpointDisabled(endpointId);
      }
    } catch (error) {
      logger.warn({ err: error, outcomes: batch.length }, 'Writing delivery outcomes failed; trying again shortly');
      this.waiting.unshift(...waiting);
      this.schedule(RETRY_MS);
    }
  }

  private count(outcome: DeliveryOutcome): void {
    this.deps.metrics.deliveries.inc({ channel: outcome.delivery.channel, outcome: outcome.status === 'pending' ? 'retried' : outcome.status });
    if (outcome.status === 'succeeded') this.counters.succeeded++;
    else if (outcome.status === 'pending') this.counters.retried++;
    else if (outcome.status === 'failed') this.counters.failed++;
    else this.counters.cancelled++;
    if (outcome.status === 'failed')
      this.deps.logger.log(
        { deliveryId: outcome.delivery.id, messageId: outcome.delivery.messageId, route: outcome.delivery.route, error: outcome.error },
        'Delivery failed for good',
      );
  }

  /** Logs the counters since start when they moved, with the outbox's depth. */
  private async reportNow(state: { inFlight: number; queued: number }): Promise<void> {
    const snapshot = JSON.stringify(this.counters);
    if (snapshot === this.reported) return;
    this.reported = snapshot;
    const pending = await this.deps.store.pendingCount().catch(() => undefined);
    this.deps.logger.log({ ...this.counters, ...state, pending }, 'Delivery counters');
  }
}
