import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Clock } from '../common/clock.js';
import { AppConfig } from '../config/app-config.js';
import { WebhookEndpointStore } from '../configs/webhook-endpoint-store.js';
import { Transactions, type WorkerConnection } from '../database/transactions.js';
import { DrainReports } from '../common/drain-reports.js';
import { Metrics } from '../common/metrics.js';
import { judge, type AttemptResult } from './delivery-outcome.js';
import { advancedRoute } from './delivery-routes.js';
import type { DeliveryContext } from './delivery-context.js';
import { DeliverySenders } from './delivery-senders.js';
import { OutboxPruner } from './outbox-pruner.js';
import { OutboxStore, type ClaimedDelivery } from './outbox-store.js';
import { OutcomeWriter } from './outcome-writer.js';
import { RoutePacing } from './route-pacing.js';
import { Cancellation } from './webhook-http.js';

/** How often the worker looks for work it was not told of (other instances' events, retries coming due). */
const POLL_MS = 1000;
/** How long wake-ups wait to be claimed together. */
const WAKE_DELAY_MS = 2;
/** Claiming pauses while claimed events take this much memory. */
const HELD_BYTES_LIMIT = 64 * 1024 * 1024;
/**
 * A queued delivery starts only if its claim was known to hold this recently; older ones wait for
 * the next check, so a delivery cancelled through another instance is not sent after it.
 */
const HELD_RECENTLY_MS = 1500;
/** Room left in a lease after its attempt's longest run, for writing the outcome. */
const LEASE_MARGIN_MS = 5000;
/**
 * The least time a claimed delivery has to start its attempt. A slow route holds one batch
 * running and one waiting, so the waiting one starts up to a whole attempt after its claim; and
 * on a loaded machine claiming itself can take a while. Were the allowance only one attempt
 * long (it was), the waiting batch would miss it and be handed back, claim after claim.
 */
const MIN_START_ALLOWANCE_MS = 5000;
/** How long shutdown waits for attempts in flight (at most half of `SHUTDOWN_TIMEOUT_MS`). */
const SHUTDOWN_GRACE_MS = 5000;
/** How often the delivery counters are logged (when they moved). */
const REPORT_MS = 60_000;

interface Queued {
  delivery: ClaimedDelivery;
  context: DeliveryContext;
  /** `performance.now()` by which its request must start for its lease to outlast it. */
  startBy: number;
  /** `performance.now()` when its claim was last known to hold (claimed, or checked since). */
  heldAt: number;
}

/**
 * Delivers the outbox (contract 6.3). Finds the routes (destinations) with work due, claims
 * their oldest deliveries in batches (on PostgreSQL with `SKIP LOCKED`, so instances sharing a
 * database never take the same one), runs up to `DELIVERY_CONCURRENCY` attempts at once, paced
 * per route by `RoutePacing`, and writes outcomes in batches. A claim is a lease covering a wait
 * to start (`startAllowanceMs`), the attempt and a margin to write its outcome: a live worker
 * settles first, and a dead worker's claims are taken again when they end. At-least-once: a
 * crash between a receiver's answer and its record means one more attempt, with the same
 * `webhook-id`. An attempt keeps its slot (of the worker's and of its route's concurrency) until
 * its outcome is written, so what a crash sends again is at most the attempts in flight then.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Deliveries');
  private readonly capacity: number;
  /** How long after its claim a delivery may still start: twice the attempt timeout, at least `MIN_START_ALLOWANCE_MS`. */
  private readonly startAllowanceMs: number;
  private readonly leaseMs: number;
  private readonly pacing: RoutePacing;
  private running = false;
  /**
   * Database connections of its own, so claims and outcomes never wait behind requests for the
   * pool; one each, so writing outcomes never holds up the next claim.
   */
  private claims: WorkerConnection | undefined;
  private outcomes: WorkerConnection | undefined;
  /** Routes known to have deliveries due (woken, or found by `OutboxStore.dueRoutes`). */
  private readonly active = new Set<string>();
  /** The next pump first asks which routes have work due. */
  private discover = false;
  private pump: Promise<void> | undefined;
  private pumpAgain = false;
  /** Every claim this worker holds (queued, in flight or waiting to be written), by delivery id. */
  private readonly held = new Map<string, ClaimedDelivery>();
  private heldBytes = 0;
  /** Claimed and waiting to start, per route, in claim order. */
  private readonly queued = new Map<string, Queued[]>();
  private queuedCount = 0;
  private readonly inFlight = new Map<string, Set<Cancellation>>();
  private inFlightCount = 0;
  private readonly attempts = new Set<Promise<void>>();
  /** Attempts stopped by shutdown, to be handed back unjudged. */
  private readonly abandoned: ClaimedDelivery[] = [];
  /** Writes outcomes in batches, and counts them. */
  private readonly outcomeWriter: OutcomeWriter;
  private readonly pruner: OutboxPruner;
  private readonly timers: {
    wake?: NodeJS.Timeout;
    drain?: NodeJS.Timeout;
    poll?: NodeJS.Timeout;
    report?: NodeJS.Timeout;
  } = {};

  constructor(
    private readonly config: AppConfig,
    private readonly store: OutboxStore,
    private readonly senders: DeliverySenders,
    endpoints: WebhookEndpointStore,
    private readonly transactions: Transactions,
    private readonly clock: Clock,
    @InjectDataSource() private readonly dataSource: DataSource,
    metrics: Metrics,
    drain: DrainReports,
  ) {
    this.capacity = config.deliveryConcurrency;
    // Shutdown lets attempts in flight end (for a while), and hands queued claims back.
    drain.add('deliveriesInFlight', () => this.inFlightCount);
    drain.add('deliveriesQueued', () => this.queuedCount);
    metrics.gauge(
      'outbox_deliveries',
      'Deliveries in the outbox waiting for an attempt (all instances), and claimed by this instance: queued or in flight.',
      'state',
      async () => ({
        pending: await this.store.pendingCount(),
        queued: this.queuedCount,
        in_flight: this.inFlightCount,
      }),
    );
    this.startAllowanceMs = Math.max(2 * config.webhookTimeoutMs, MIN_START_ALLOWANCE_MS);
    this.leaseMs = this.startAllowanceMs + config.webhookTimeoutMs + LEASE_MARGIN_MS;
    this.pacing = new RoutePacing(config.deliveryConcurrency);
    const logger = this.logger;
    this.outcomeWriter = new OutcomeWriter({ store, senders, endpoints, transactions, clock, metrics, logger }, () => this.outcomes, {
      written: (delivery) => this.unhold(delivery),
      followUpsDue: (routes) => this.wake(routes),
      endpointDisabled: (endpointId) => {
        // What is queued for it goes back: claimed again, it fails as disabled without a request.
        const queued = this.queued.get(advancedRoute(endpointId)) ?? [];
        this.queued.delete(advancedRoute(endpointId));
        this.queuedCount -= queued.length;
        void this.releaseClaims(queued.map((item) => item.delivery));
      },
    });
    this.pruner = new OutboxPruner({ store, transactions, clock, logger }, config.deliveryRetentionDays, () => this.outcomes);
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
    this.claims = this.transactions.workerConnection({ relaxedDurability: true });
    this.outcomes = this.transactions.workerConnection({ relaxedDurability: true });
    this.running = true;
    this.timers.poll = setInterval(() => this.poll(), POLL_MS).unref();
    this.timers.report = setInterval(() => void this.report(), REPORT_MS).unref();
    this.pruner.start();
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
    this.timers.wake ??= setTimeout(() => {
      this.timers.wake = undefined;
      if (this.pump) this.pumpAgain = true;
      else this.pump = this.claimWhileDue().finally(() => (this.pump = undefined));
    }, WAKE_DELAY_MS);
  }

  /**
   * Stops a route's deliveries at once (its endpoint was deleted, here or on another instance):
   * attempts in flight are aborted and claimed ones dropped. The outbox rows were cancelled in
   * the deleting transaction, so nothing of theirs is written back.
   */
  abortRoute(route: string): void {
    this.active.delete(route);
    this.pacing.forget(route);
    for (const item of this.queued.get(route) ?? []) this.unhold(item.delivery);
    this.queuedCount -= this.queued.get(route)?.length ?? 0;
    this.queued.delete(route);
    for (const cancellation of this.inFlight.get(route) ?? []) cancellation.cancel('deleted');
  }

  /** Outcomes written since start, by kind, and claims handed back unstarted. */
  get counts(): Readonly<OutcomeWriter['counters']> {
    return { ...this.outcomeWriter.counters };
  }

  /** Claims this worker holds now: queued, in flight, or with their outcome not yet written. */
  get claimsHeld(): number {
    return this.held.size;
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const timer of Object.values(this.timers)) clearTimeout(timer);
    this.pruner.stop();
    this.outcomeWriter.stop();
    // A claim under way hands back what it took (it sees the worker stopping).
    await this.pump;
    // Claimed but not started: back to the outbox, for whichever worker runs next.
    await this.releaseClaims([...this.queued.values()].flat().map((item) => item.delivery));
    this.queued.clear();
    this.queuedCount = 0;
    // Attempts in flight get a moment to end and have their outcomes written; those still
    // running then are stopped and handed back unjudged, for an attempt after the restart.
    const grace = new Promise((resolve) => setTimeout(resolve, Math.min(SHUTDOWN_GRACE_MS, this.config.shutdownTimeoutMs / 2)).unref());
    await Promise.race([Promise.allSettled([...this.attempts]), grace]);
    for (const running of this.inFlight.values()) for (const cancellation of running) cancellation.cancel('stopping');
    await Promise.allSettled([...this.attempts]);
    await this.releaseClaims(this.abandoned.splice(0));
    await this.outcomeWriter.settleNow();
    await this.report();
    for (const connection of [this.claims!, this.outcomes!]) await this.transactions.release(connection);
  }

  /** Every second: look for work due anywhere, and drop queued claims that were cancelled meanwhile. */
  private poll(): void {
    this.wake();
    void this.checkQueuedClaims();
  }

  /**
   * Claims while there is room and something is due: first, when asked, which routes have work
   * due; then each active route's oldest due deliveries, up to its room. A route that gives
   * less than asked is drained and leaves the active set until it is woken or found again.
   */
  private async claimWhileDue(): Promise<void> {
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
    }
  }

  /**
   * Claimed work may reach twice the concurrency (half running, half ready to start the moment
   * a slot frees), while what it holds stays within memory bounds.
   */
  private room(): number {
    if (this.heldBytes > HELD_BYTES_LIMIT) return 0;
    return 2 * this.capacity - this.inFlightCount - this.queuedCount;
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
      const free = Math.min(this.pacing.roomOf(route) - this.routeLoad(route), room);
      if (free <= 0) continue;
      wanted.set(route, free);
      room -= free;
      if (!room) break;
    }
    if (!wanted.size) return false;
    // The lease runs from before the claim: time spent claiming comes out of the start allowance.
    const startBy = performance.now() + this.startAllowanceMs;
    const now = this.clock.now();
    // Each route's claim is one statement, atomic alone; the reads after it need no transaction.
    const { claimed, drained, contexts } = await this.transactions.run(
      async (manager) => {
        const result = await this.store.claim(manager, now, now + this.leaseMs, wanted);
        return { ...result, contexts: await this.senders.contextsOf(result.claimed) };
      },
      this.claims,
      { atomic: false },
    );
    if (!this.running) {
      await this.releaseClaims(claimed);
      return false;
    }
    for (const route of wanted.keys()) {
      this.active.delete(route);
      if (!drained.includes(route)) this.active.add(route);
    }
    this.logger.debug(
      { routes: wanted.size, claimed: claimed.length, drained: drained.length, inFlight: this.inFlightCount, queued: this.queuedCount },
      'Claimed deliveries',
    );
    for (const delivery of claimed) {
      const mine = this.held.get(delivery.id);
      if (mine) {
        // Still ours, from a claim whose lease ran out before its outcome was written: the new
        // claim carries on that attempt rather than starting a second one.
        mine.leaseToken = delivery.leaseToken;
        continue;
      }
      this.hold(delivery);
      const list = this.queued.get(delivery.route) ?? this.queued.set(delivery.route, []).get(delivery.route)!;
      list.push({ delivery, context: contexts.get(delivery.id)!, startBy, heldAt: performance.now() });
      this.queuedCount++;
    }
    this.drain();
    return claimed.length > 0;
  }

  private hold(delivery: ClaimedDelivery): void {
    this.held.set(delivery.id, delivery);
    this.heldBytes += delivery.eventBytes;
  }

  private unhold(delivery: ClaimedDelivery): void {
    if (this.held.get(delivery.id) !== delivery) return;
    this.held.delete(delivery.id);
    this.heldBytes -= delivery.eventBytes;
  }

  /**
   * Starts queued deliveries as their routes' pacing allows. One that waited so long its lease
   * could end during its attempt goes back to the outbox instead.
   */
  private drain(): void {
    if (!this.running) return;
    let wait = Infinity;
    const expired: ClaimedDelivery[] = [];
    const now = performance.now();
    for (const [route, list] of this.queued) {
      while (list.length && list[0]!.startBy < now) {
        expired.push(list.shift()!.delivery);
        this.queuedCount--;
      }
      while (list.length && this.inFlightCount < this.capacity && now - list[0]!.heldAt <= HELD_RECENTLY_MS) {
        const ms = this.pacing.waitToStart(route, this.inFlight.get(route)?.size ?? 0, list[0]!.context.endpoint?.rateLimit ?? null);
        if (ms > 0) {
          wait = Math.min(wait, ms);
          break;
        }
        this.launch(list.shift()!);
        this.queuedCount--;
      }
      if (!list.length) this.queued.delete(route);
    }
    this.outcomeWriter.handedBack(expired.length);
    void this.releaseClaims(expired);
    if (wait !== Infinity && !this.timers.drain) {
      this.timers.drain = setTimeout(() => {
        this.timers.drain = undefined;
        this.drain();
      }, wait);
    }
  }

  /** Hands claims back to the outbox; on failure their leases end anyway. */
  private async releaseClaims(deliveries: ClaimedDelivery[]): Promise<void> {
    if (!deliveries.length) return;
    for (const delivery of deliveries) this.unhold(delivery);
    await this.transactions
      .run((manager) => this.store.release(manager, deliveries, this.clock.now()), this.claims)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'Releasing claims failed; they come due when their leases end'));
  }

  /**
   * Checks the claims of queued deliveries: those that no longer hold (their endpoint was
   * deleted or their delivery cancelled, perhaps through another instance) are dropped, the
   * others may start (see `HELD_RECENTLY_MS`).
   */
  private async checkQueuedClaims(): Promise<void> {
    const checked = [...this.queued.values()].flat();
    if (!checked.length) return;
    try {
      const asked = performance.now();
      const held = await this.transactions.run(
        (manager) =>
          this.store.stillClaimed(
            manager,
            checked.map((item) => item.delivery),
          ),
        this.claims,
      );
      for (const item of checked) if (held.has(item.delivery.id)) item.heldAt = asked;
      // Only what was checked can be lost: the queues may have gained claims meanwhile.
      const lost = new Set(checked.filter((item) => !held.has(item.delivery.id)));
      if (!lost.size) return this.drain();
      for (const [route, list] of this.queued) {
        const kept = list.filter((item) => !lost.has(item));
        for (const item of list) if (lost.has(item)) this.unhold(item.delivery);
        this.queuedCount -= list.length - kept.length;
        if (kept.length) this.queued.set(route, kept);
        else this.queued.delete(route);
      }
      this.drain();
    } catch (error) {
      this.logger.warn({ err: error }, 'Checking claims failed; trying again shortly');
    }
  }

  private launch({ delivery, context, startBy }: Queued): void {
    const cancellation = new Cancellation();
    const running = this.inFlight.get(delivery.route) ?? this.inFlight.set(delivery.route, new Set()).get(delivery.route)!;
    running.add(cancellation);
    this.inFlightCount++;
    const ended = this.pacing.started(delivery.route);
    const attemptedAt = this.clock.now();
    let recorded: Promise<void> = Promise.resolve();
    const attempt = this.senders
      .attempt(delivery, context, startBy, cancellation)
      .catch((error: unknown): AttemptResult => ({ sent: true, error: `Delivery failed: ${(error as Error).message}`, durationMs: 0 }))
      .then((result) => {
        if ('released' in result) {
          this.outcomeWriter.handedBack(1);
          return void this.releaseClaims([delivery]);
        }
        if (cancellation.reason === 'stopping') return void this.abandoned.push(delivery);
        if (!cancellation.cancelled) this.pacing.noteSpeed(delivery.route, result);
        const judged = judge(delivery, result, this.clock.now());
        recorded = this.outcomeWriter.settleSoon({
          delivery,
          attempted: result.sent,
          attemptedAt,
          statusCode: result.sent ? (result.statusCode ?? null) : null,
          durationMs: result.sent ? result.durationMs : 0,
          error: judged.error,
          answer: result.sent ? (result.answer ?? null) : null,
          status: judged.status,
          nextAttemptAt: judged.nextAttemptAt,
          gone: judged.gone,
          ...(result.sent && result.followUps?.length ? { followUps: result.followUps } : {}),
          ...(result.sent && result.inbox?.length ? { inbox: result.inbox } : {}),
        });
      })
      .finally(() => {
        this.attempts.delete(attempt);
        // The slot frees once the outcome is written, not when the receiver answers: a request
        // sent is sent again after a crash until its outcome is recorded, so the attempts a crash
        // repeats stay within the concurrency (an outcome writer falling behind, or failing,
        // holds back new attempts instead of piling up answered ones to be sent again).
        void recorded.finally(() => {
          ended();
          running.delete(cancellation);
          if (!running.size) this.inFlight.delete(delivery.route);
          this.inFlightCount--;
          this.drain();
          // Refill a route with more due once half its room is free: claims stay batches rather
          // than one per finished attempt, and come before the route runs dry.
          if (this.active.has(delivery.route) && this.routeLoad(delivery.route) <= this.pacing.roomOf(delivery.route) / 2) this.wake([]);
        });
      });
    this.attempts.add(attempt);
  }

  /** Deletes settled messages past `DELIVERY_RETENTION_DAYS` now (see `OutboxPruner`). */
  prune(): Promise<number> {
    return this.pruner.prune();
  }

  /** Logs the counters when they moved (see `OutcomeWriter.report`). */
  private report(): Promise<void> {
    return this.outcomeWriter.report(() => ({ inFlight: this.inFlightCount, queued: this.queuedCount }));
  }
}
