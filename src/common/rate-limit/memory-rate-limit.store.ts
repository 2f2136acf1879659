import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface.js';

/** Where rate-limit counters live now, for `/health`. */
export type LimiterState =
  | { store: 'memory' | 'redis'; degraded: false }
  /** Redis is configured but unreachable: counted in this process since `since`. */
  | { store: 'redis'; degraded: true; countedIn: 'process'; since: string };

interface Window {
  hits: number;
  resetsAt: number;
}

/**
 * Fixed-window counters in this process. A window opens at its first hit and closes `ttl`
 * later; hits over the limit are refused without moving the window (contract 1.6). O(1) per
 * hit, unlike a per-hit log, which matters at 6000 requests a minute per key.
 */
export class MemoryRateLimitStore implements ThrottlerStorage {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepIntervalMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), sweepIntervalMs);
    this.sweeper.unref();
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetsAt <= now) {
      window = { hits: 0, resetsAt: now + ttl };
      this.windows.set(key, window);
    }
    window.hits += 1;
    return toRecord(window.hits, window.resetsAt - now, limit);
  }

  /** The open window of `key` (no hits when none is open), read without counting a hit. */
  async peek(key: string, limit: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    const window = this.windows.get(key);
    return window && window.resetsAt > now ? toRecord(window.hits, window.resetsAt - now, limit) : toRecord(0, 0, limit);
  }

  state(): LimiterState {
    return { store: 'memory', degraded: false };
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, window] of this.windows) if (window.resetsAt <= now) this.windows.delete(key);
  }
}

export function toRecord(hits: number, msLeft: number, limit: number): ThrottlerStorageRecord {
  const secondsLeft = Math.max(1, Math.ceil(msLeft / 1000));
  const isBlocked = hits > limit;
  return { totalHits: hits, timeToExpire: secondsLeft, isBlocked, timeToBlockExpire: isBlocked ? secondsLeft : 0 };
}
