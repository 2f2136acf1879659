import type { AttemptResult } from './delivery-outcome.js';

/** Attempts one route runs at once while its receiver answers promptly. */
export const ROUTE_CONCURRENCY = 16;
/** ... and once it is slow: an attempt took over `SLOW_ATTEMPT_MS`, or got no answer. */
export const SLOW_ROUTE_CONCURRENCY = 2;
export const SLOW_ATTEMPT_MS = 2000;

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
 * How hard the worker may push each route (destination), so one receiver cannot hold up the
 * others: a prompt route runs `ROUTE_CONCURRENCY` attempts at once (a quarter of the worker,
 * when that is less); a slow or unreachable one runs `SLOW_ROUTE_CONCURRENCY`, and slow routes
 * together at most a quarter of the worker, whatever their number; an endpoint with a
 * `rateLimit` starts no more than that many attempts a second.
 */
export class RoutePacing {
  private readonly routeCapacity: number;
  private readonly slowCapacity: number;
  private readonly slow = new Set<string>();
  private readonly buckets = new Map<string, RateBucket>();
  /** Attempts running on slow routes. */
  private slowRunning = 0;

  constructor(private readonly capacity: number) {
    this.routeCapacity = Math.min(ROUTE_CONCURRENCY, Math.max(1, Math.ceil(capacity / 4)));
    this.slowCapacity = Math.max(SLOW_ROUTE_CONCURRENCY, Math.ceil(capacity / 4));
  }

  isSlow(route: string): boolean {
    return this.slow.has(route);
  }

  /** Attempts the route may run at once. */
  capacityOf(route: string): number {
    return this.slow.has(route) ? Math.min(SLOW_ROUTE_CONCURRENCY, this.routeCapacity) : this.routeCapacity;
  }

  /**
   * Claimed work the route may hold: a prompt route, eight times what it runs, so that claims
   * (refilled at half) come in batches of four times that and it keeps running while the next is
   * made; a slow route, one batch running and one waiting.
   */
  roomOf(route: string): number {
    return (this.slow.has(route) ? 2 : 8) * this.capacityOf(route);
  }

  /**
   * Whether one more attempt may start on the route, `running` there already: 0 when it may,
   * else how many ms until a rate-limited endpoint has a token (Infinity: not before an attempt ends).
   */
  waitToStart(route: string, running: number, rateLimit: number | null): number {
    if (running >= this.capacityOf(route)) return Infinity;
    if (this.slow.has(route) && this.slowRunning >= this.slowCapacity) return Infinity;
    if (rateLimit === null) return 0;
    let bucket = this.buckets.get(route);
    if (!bucket || bucket.perSecond !== rateLimit) this.buckets.set(route, (bucket = new RateBucket(rateLimit)));
    return bucket.take();
  }

  /** An attempt starts; the returned function says it ended. */
  started(route: string): () => void {
    const slow = this.slow.has(route);
    if (slow) this.slowRunning++;
    return () => {
      if (slow) this.slowRunning--;
    };
  }

  /** A route turns slow when an attempt runs past `SLOW_ATTEMPT_MS` or gets no answer, and prompt with a prompt answer. */
  noteSpeed(route: string, result: AttemptResult): void {
    if (!result.sent) return;
    const unanswered = result.statusCode === undefined && result.verdict === undefined;
    if (unanswered || result.durationMs > SLOW_ATTEMPT_MS) this.slow.add(route);
    else this.slow.delete(route);
  }

  /** A route that is gone (its endpoint deleted). */
  forget(route: string): void {
    this.slow.delete(route);
    this.buckets.delete(route);
  }
}
