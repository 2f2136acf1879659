import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../common/clock.js';
import { AppConfig } from '../config/app-config.js';
import { ConfigsService } from '../configs/configs.service.js';
import { WebhookEndpointsService } from '../configs/webhook-endpoints.service.js';
import { Transactions, type WorkerConnection } from '../database/transactions.js';
import { judge, type AttemptResult } from './delivery-outcome.js';
import { OutboxStore, type ClaimedDelivery, type DeliveryOutcome } from './outbox-store.js';
import { Cancellation } from './webhook-http.js';
import { WebhookSender, type DeliveryContext } from './webhook-sender.js';

/** How often an idle worker looks for work it was not told of (other instances' events, retries coming due). */
const POLL_MS = 1000;
/** Outcomes are written together: after this long, or as soon as this many wait. */
const SETTLE_DELAY_MS = 10;
const SETTLE_BATCH = 128;
/** Attempts one route runs at once while its receiver answers promptly. */
const ROUTE_CONCURRENCY = 16;
/** ... and once it is slow (an attempt took over `SLOW_ATTEMPT_MS`, or got no answer). */
const SLOW_ROUTE_CONCURRENCY = 2;
const SLOW_ATTEMPT_MS = 2000;
/** How long shutdown waits for attempts in flight (at most half of `SHUTDOWN_TIMEOUT_MS`). */
const SHUTDOWN_GRACE_MS = 5000;
/** How long wake-ups wait to be claimed together. */
const WAKE_DELAY_MS = 2;
/** Room left in a lease after its attempt's longest run, for writing the outcome. */
const LEASE_MARGIN_MS = 5000;
/** How often the delivery counters are logged (when they moved). */
const REPORT_MS = 60_000;

interface Queued {
  delivery: ClaimedDelivery;
  context: DeliveryContext;
  /** `performance.now()` after which it may not start: its lease must outlast its attempt. */
  startBy: number;
}

/** Deliveries per second to one route, for endpoints with a `rateLimit`. */
class RateBucket {
  private tokens: number;
  private at: number;

  constructor(readonly perSecond: number) {
    this.tokens = perSecond;
    this.at = performance.now();
  }

  /** Takes a token if one is there; otherwise says how many ms until one is. */
  take(): number {
    const now = performance.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) * 1000) / this.perSecond);
  }
}

/**
 * Delivers the outbox (contract 6.3). Claims due deliveries in batches (on PostgreSQL with
 * `SKIP LOCKED`, so instances sharing a database never take the same one), runs up to
 * `DELIVERY_CONCURRENCY` attempts at once and at most a quarter of them on one route (one
 * destination), so a receiver that hangs holds back only itself, and writes outcomes in
 * batches. A claim is a lease: longer than two attempts can take, so a live worker always
 * settles first; a dead worker's claims come due again when it ends. At-least-once: a crash
 * between a receiver's answer and its record means one more attempt, with the same `webhook-id`.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Deliveries');
  private readonly capacity: number;
  private readonly routeCapacity: number;
  private readonly leaseMs: number;
  private running = false;
  /**
   * Database connections of its own, so claims and outcomes never wait behind requests for
   * the pool; one each, so writing outcomes never holds up the next claim.
   */
  private claims: WorkerConnection | undefined;
  private outcomes: WorkerConnection | undefined;
  /** Claimed and waiting for a slot, per route, in claim order. */
  private readonly queued = new Map<string, Queued[]>();
  private queuedCount = 0;
  private readonly inFlight = new Map<string, Set<Cancellation>>();
  private inFlightCount = 0;
  private readonly attempts = new Set<Promise<void>>();
  private readonly buckets = new Map<string, RateBucket>();
  /** Attempts stopped by shutdown, to be handed back unjudged. */
  private readonly abandoned: ClaimedDelivery[] = [];
  /** Routes whose receivers are slow or unreachable (see `capacityOf`). */
  private readonly slowRoutes = new Set<string>();
  private pumping = false;
  private pumpAgain = false;
  private wakeTimer: NodeJS.Timeout | undefined;
  /** Routes known to have deliveries due (woken, or found by `OutboxStore.dueRoutes`). */
  private readonly active = new Set<string>();
  /** The next pump first asks which routes have work due. */
  private discover = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private reportTimer: NodeJS.Timeout | undefined;
  private readonly toSettle: DeliveryOutcome[] = [];
  private settleTimer: NodeJS.Timeout | undefined;
  private settling: Promise<void> | undefined;
  private readonly counters = { succeeded: 0, retried: 0, failed: 0, cancelled: 0, endpointsDisabled: 0 };
  private reported = '';

  constructor(
    private readonly config: AppConfig,
    private readonly store: OutboxStore,
    private readonly sender: WebhookSender,
    private readonly configs: ConfigsService,
    private readonly endpoints: WebhookEndpointsService,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    this.capacity = config.deliveryConcurrency;
    this.routeCapacity = Math.min(ROUTE_CONCURRENCY, Math.max(1, Math.ceil(config.deliveryConcurrency / 4)));
    this.leaseMs = 2 * config.webhookTimeoutMs + LEASE_MARGIN_MS;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.capacity > 0) await this.start();
  }

  /** Starts delivering (at bootstrap when `DELIVERY_CONCURRENCY` > 0). */
  async start(): Promise<void> {
    if (this.running) return;
    // The embedded database belongs to this process alone: claims found at start-up are a
    // previous run's, which died holding them; they need not wait for their leases to end.
    if (this.dataSource.options.type === 'better-sqlite3') {
      const released = await this.store.releaseClaims(this.clock.now());
      if (released) this.logger.log({ released }, 'Claims of a previous run released');
    }
    // A claim or outcome a database crash forgets only means one more attempt (at-least-once),
    // so they need not wait for the disk; the events themselves were written durably.
    this.claims = await this.transactions.workerConnection({ relaxedDurability: true });
    this.outcomes = await this.transactions.workerConnection({ relaxedDurability: true });
    this.running = true;
    // Retries coming due and other instances' events are found by looking every second.
    this.pollTimer = setInterval(() => this.wake(), POLL_MS);
    this.pollTimer.unref();
    this.reportTimer = setInterval(() => void this.report(), REPORT_MS);
    this.reportTimer.unref();
    this.wake();
  }

  /**
   * Looks for due deliveries in a moment: on `routes` (new deliveries committed there), or on
   * every route that has some due (the poll, a replay, a test moving the clock). Calls within
   * `WAKE_DELAY_MS` share one claim: 500 commits a second are not 500 claims.
   */
  wake(routes?: Iterable<string>): void {
    if (!this.running) return;
    if (routes) for (const route of routes) this.active.add(route);
    else this.discover = true;
    this.wakeTimer ??= setTimeout(() => {
      this.wakeTimer = undefined;
      if (this.pumping) this.pumpAgain = true;
      else void this.pump();
    }, WAKE_DELAY_MS);
  }

  /**
   * Stops a route's deliveries at once (its endpoint was deleted): attempts in flight are
   * aborted, claimed ones dropped. The outbox rows were cancelled in the deleting transaction.
   */
  abortRoute(route: string): void {
    this.active.delete(route);
    const queued = this.queued.get(route);
    if (queued) {
      this.queuedCount -= queued.length;
      this.queued.delete(route);
    }
    for (const cancellation of this.inFlight.get(route) ?? []) cancellation.cancel('deleted');
  }

  /** Outcomes written since start, by kind. */
  get counts(): Readonly<typeof this.counters> {
    return { ...this.counters };
  }

  /** Attempts running and deliveries claimed but not yet started, for tests and reports. */
  get load(): { inFlight: number; queued: number } {
    return { inFlight: this.inFlightCount, queued: this.queuedCount };
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const timer of [this.pollTimer, this.drainTimer, this.reportTimer, this.wakeTimer]) clearInterval(timer);
    // Claimed but not started: back to the outbox, due now, for whichever worker runs next.
    const unstarted = [...this.queued.values()].flat().map((item) => item.delivery);
    this.queued.clear();
    this.queuedCount = 0;
    await this.releaseClaims(unstarted);
    // Attempts in flight get a moment to end and have their outcomes written; those still
    // running then are stopped and handed back unjudged, for an attempt after the restart.
    const grace = new Promise((resolve) => setTimeout(resolve, Math.min(SHUTDOWN_GRACE_MS, this.config.shutdownTimeoutMs / 2)).unref());
    await Promise.race([Promise.allSettled([...this.attempts]), grace]);
    for (const running of this.inFlight.values()) for (const cancellation of running) cancellation.cancel('stopping');
    await Promise.allSettled([...this.attempts]);
    await this.releaseClaims(this.abandoned.splice(0));
    await this.settleNow();
    await this.report();
    for (const connection of [this.claims!, this.outcomes!]) await this.transactions.release(connection);
  }

  /**
   * Claims while there is room and something is due: first, when asked, which routes have work
   * due; then each active route's oldest due deliveries, up to its room. A route that gives
   * less than asked is drained and leaves the active set until it is woken or found again.
   */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        if (this.discover) {
          this.discover = false;
          const due = await this.transactions.run((manager) => this.store.dueRoutes(manager, this.clock.now()), this.claims);
          for (const route of due) this.active.add(route);
        }
        while (this.running && (await this.claim()));
      } while (this.pumpAgain && this.running);
    } catch (error) {
      this.logger.warn({ err: error }, 'Claiming deliveries failed; trying again shortly');
    } finally {
      this.pumping = false;
    }
  }

  /** Claimed work may reach twice the concurrency: half running, half ready to start the moment a slot frees. */
  private room(): number {
    return 2 * this.capacity - this.inFlightCount - this.queuedCount;
  }

  /**
   * Attempts a route may run at once: the full share while its receiver answers promptly, and
   * `SLOW_ROUTE_CONCURRENCY` once it is slow or unreachable, so endpoints that hang cannot take
   * up the worker between them.
   */
  private capacityOf(route: string): number {
    return this.slowRoutes.has(route) ? Math.min(SLOW_ROUTE_CONCURRENCY, this.routeCapacity) : this.routeCapacity;
  }

  /**
   * Claimed work a route may hold: one batch running and three ready to start as slots free, so
   * the route keeps running while the next claim is made; a slow route, one batch waiting.
   */
  private roomOf(route: string): number {
    return (this.slowRoutes.has(route) ? 2 : 4) * this.capacityOf(route);
  }

  private routeLoad(route: string): number {
    return (this.inFlight.get(route)?.size ?? 0) + (this.queued.get(route)?.length ?? 0);
  }

  /**
   * One claim across the active routes with room, in turn (a route served moves to the back),
   * with what the deliveries are sent with; returns whether it claimed anything.
   */
  private async claim(): Promise<boolean> {
    const wanted = new Map<string, number>();
    let room = this.room();
    for (const route of this.active) {
      const free = Math.min(this.roomOf(route) - this.routeLoad(route), room);
      if (free <= 0) continue;
      wanted.set(route, free);
      room -= free;
      if (!room) break;
    }
    if (!wanted.size) return false;
    const now = this.clock.now();
    const { claimed, drained, contexts } = await this.transactions.run(async (manager) => {
      const result = await this.store.claim(manager, now, now + this.leaseMs, wanted);
      return { ...result, contexts: await this.contextsOf(manager, result.claimed) };
    }, this.claims);
    for (const route of wanted.keys()) {
      this.active.delete(route);
      if (!drained.includes(route)) this.active.add(route);
    }
    this.logger.debug({ routes: wanted.size, claimed: claimed.length, drained: drained.length, inFlight: this.inFlightCount, queued: this.queuedCount }, 'Claimed deliveries');
    if (!claimed.length) return false;
    const startBy = performance.now() + this.leaseMs - this.config.webhookTimeoutMs - LEASE_MARGIN_MS;
    for (const delivery of claimed) {
      const list = this.queued.get(delivery.route) ?? this.queued.set(delivery.route, []).get(delivery.route)!;
      list.push({ delivery, context: contexts.get(delivery.id)!, startBy });
      this.queuedCount++;
    }
    this.drain();
    return true;
  }

  /** Key configs and endpoints of a claimed batch: one query each (per key), whatever its size. */
  private async contextsOf(manager: EntityManager, claimed: readonly ClaimedDelivery[]): Promise<Map<string, DeliveryContext>> {
    if (!claimed.length) return new Map();
    const configs = await this.configs.storedConfigs([...new Set(claimed.map((d) => d.apiKeyId))], manager);
    const advanced = claimed.filter((d) => d.channel === 'advanced_webhook');
    const endpoints = advanced.length ? await this.endpoints.forDelivery(advanced.map((d) => ({ apiKeyId: d.apiKeyId, endpointId: d.target })), manager) : new Map();
    return new Map(
      claimed.map((d) => [d.id, { configs: configs.get(d.apiKeyId), ...(d.channel === 'advanced_webhook' && endpoints.has(d.target) ? { endpoint: endpoints.get(d.target) } : {}) }]),
    );
  }

  /**
   * Starts queued deliveries on routes with a free slot (and, for rate-limited endpoints, a
   * token). One that waited so long its lease could end during its attempt goes back instead.
   */
  private drain(): void {
    let wait = Infinity;
    const expired: ClaimedDelivery[] = [];
    const now = performance.now();
    for (const [route, list] of this.queued) {
      while (list.length && list[0]!.startBy < now) {
        expired.push(list.shift()!.delivery);
        this.queuedCount--;
      }
      while (list.length && this.inFlightCount < this.capacity && (this.inFlight.get(route)?.size ?? 0) < this.capacityOf(route)) {
        const rateLimit = list[0]!.context.endpoint?.rateLimit ?? null;
        if (rateLimit !== null) {
          let bucket = this.buckets.get(route);
          if (!bucket || bucket.perSecond !== rateLimit) this.buckets.set(route, (bucket = new RateBucket(rateLimit)));
          const ms = bucket.take();
          if (ms > 0) {
            wait = Math.min(wait, ms);
            break;
          }
        }
        this.launch(list.shift()!);
        this.queuedCount--;
      }
      if (!list.length) this.queued.delete(route);
    }
    if (expired.length) void this.releaseClaims(expired);
    if (wait !== Infinity && !this.drainTimer) {
      this.drainTimer = setTimeout(() => {
        this.drainTimer = undefined;
        this.drain();
      }, wait);
    }
  }

  /** Hands claimed deliveries back to the outbox, due now; on failure their leases end anyway. */
  private async releaseClaims(deliveries: ClaimedDelivery[]): Promise<void> {
    if (!deliveries.length) return;
    await this.transactions
      .run((manager) => this.store.release(manager, deliveries, this.clock.now()), this.claims)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'Releasing claims failed; they come due when their leases end'));
  }

  private launch({ delivery, context }: Queued): void {
    const cancellation = new Cancellation();
    const running = this.inFlight.get(delivery.route) ?? this.inFlight.set(delivery.route, new Set()).get(delivery.route)!;
    running.add(cancellation);
    this.inFlightCount++;
    const attemptedAt = this.clock.now();
    const attempt = this.sender
      .attempt(delivery, context, cancellation)
      .catch((error: unknown): AttemptResult => ({ sent: true, error: `Delivery failed: ${(error as Error).message}`, durationMs: 0 }))
      .then((result) => {
        if (cancellation.reason === 'stopping') {
          this.abandoned.push(delivery);
          return;
        }
        this.noteSpeed(delivery.route, result);
        const judged = judge(delivery, result, this.clock.now());
        this.settleSoon({
          delivery,
          attempted: result.sent,
          attemptedAt,
          statusCode: result.sent ? (result.statusCode ?? null) : null,
          durationMs: result.sent ? result.durationMs : 0,
          error: judged.error,
          status: judged.status,
          nextAttemptAt: judged.nextAttemptAt,
          gone: judged.gone,
        });
      })
      .finally(() => {
        running.delete(cancellation);
        if (!running.size) this.inFlight.delete(delivery.route);
        this.inFlightCount--;
        this.attempts.delete(attempt);
        this.drain();
        // Refill a route with more due once half its room is free: claims stay batches rather
        // than one per finished attempt, and come before the route runs dry.
        if (this.active.has(delivery.route) && this.routeLoad(delivery.route) <= this.roomOf(delivery.route) / 2) this.wake([]);
      });
    this.attempts.add(attempt);
  }

  /** A route is slow while its latest attempt ran past `SLOW_ATTEMPT_MS` or got no answer. */
  private noteSpeed(route: string, result: AttemptResult): void {
    if (!result.sent) return;
    if (result.statusCode === undefined || result.durationMs > SLOW_ATTEMPT_MS) this.slowRoutes.add(route);
    else this.slowRoutes.delete(route);
  }

  private settleSoon(outcome: DeliveryOutcome): void {
    this.toSettle.push(outcome);
    if (this.toSettle.length >= SETTLE_BATCH) void this.settleNow();
    else this.settleTimer ??= setTimeout(() => void this.settleNow(), SETTLE_DELAY_MS);
  }

  /** Writes the waiting outcomes in one unit of work; on failure they wait for the next try. */
  private async settleNow(): Promise<void> {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    // One writer at a time keeps outcomes of one delivery in order.
    while (this.settling) await this.settling;
    const batch = this.toSettle.splice(0) as DeliveryOutcome[];
    if (!batch.length) return;
    this.settling = this.write(batch).finally(() => (this.settling = undefined));
    await this.settling;
  }

  private async write(batch: DeliveryOutcome[]): Promise<void> {
    try {
      const disabled = await this.transactions.run(async (manager) => {
        const written = await this.store.settle(manager, batch, this.clock.now());
        // An endpoint's health follows its latest attempt in the batch.
        const latest = new Map<string, DeliveryOutcome>();
        for (const outcome of written as DeliveryOutcome[]) {
          if (outcome.attempted && outcome.delivery.channel === 'advanced_webhook') latest.set(`${outcome.delivery.apiKeyId}\u0000${outcome.delivery.target}`, outcome);
        }
        const disabledNow: string[] = [];
        for (const outcome of latest.values()) {
          const { apiKeyId, target } = outcome.delivery;
          if (await this.endpoints.recordHealth(manager, apiKeyId, target, { succeeded: outcome.status === 'succeeded', gone: outcome.gone, at: outcome.attemptedAt })) disabledNow.push(target);
        }
        for (const outcome of written) this.count(outcome);
        return disabledNow;
      }, this.outcomes);
      for (const endpointId of disabled) {
        this.counters.endpointsDisabled++;
        this.logger.warn({ endpointId }, 'Advanced webhook endpoint disabled (410 Gone, or failing for 5 days)');
      }
    } catch (error) {
      this.logger.warn({ err: error, outcomes: batch.length }, 'Writing delivery outcomes failed; trying again shortly');
      this.toSettle.unshift(...batch);
      this.settleTimer ??= setTimeout(() => void this.settleNow(), POLL_MS);
    }
  }

  private count(outcome: DeliveryOutcome): void {
    if (outcome.status === 'succeeded') this.counters.succeeded++;
    else if (outcome.status === 'pending') this.counters.retried++;
    else if (outcome.status === 'failed') this.counters.failed++;
    else this.counters.cancelled++;
    if (outcome.status === 'failed') this.logger.log({ deliveryId: outcome.delivery.id, messageId: outcome.delivery.messageId, route: outcome.delivery.route, error: outcome.error }, 'Delivery failed for good');
  }

  /** Logs the counters since start when they moved, with the outbox's depth. */
  private async report(): Promise<void> {
    const snapshot = JSON.stringify(this.counters);
    if (snapshot === this.reported) return;
    this.reported = snapshot;
    const pending = await this.store.pendingCount().catch(() => undefined);
    this.logger.log({ ...this.counters, inFlight: this.inFlightCount, queued: this.queuedCount, pending }, 'Delivery counters');
  }
}
