import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface.js';
import type { Redis } from 'ioredis';
import { ioredis } from '../optional-modules.js';
import { MemoryRateLimitStore, toRecord, type LimiterState } from './memory-rate-limit.store.js';

/** INCR and open the window on the first hit, atomically; returns hits and ms left. */
const HIT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl}`;

/** Longest wait for one Redis command: a limiter never holds a request up for long. */
const COMMAND_TIMEOUT_MS = 250;
/** After a failure, how long requests are counted in this process before Redis is tried again. */
const OPEN_CIRCUIT_MS = 5000;

/**
 * The same fixed windows as `MemoryRateLimitStore`, kept in Redis so several instances share
 * them. A limiter outage must not become a service outage, nor a slow one: commands time out
 * after `COMMAND_TIMEOUT_MS` and fail at once while disconnected (no offline queue); after a
 * failure the circuit opens and requests are counted in this process (limits then hold per
 * instance) for `OPEN_CIRCUIT_MS`, before Redis is tried again. One warning when an outage
 * starts and one line when it ends, not one per request; `/health` shows the degraded limiter.
 */
export class RedisRateLimitStore implements ThrottlerStorage {
  private readonly logger = new Logger('RedisRateLimitStore');
  private readonly redis: Redis;
  private readonly fallback = new MemoryRateLimitStore();
  /** Until when requests are counted in this process; 0 while Redis answers. */
  private openUntil = 0;
  /** Since when Redis has been failing (undefined while it answers). */
  private outageSince: number | undefined;

  constructor(
    url: string,
    private readonly keyPrefix: string,
  ) {
    this.redis = new (ioredis().Redis)(url, {
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 2000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      // Reconnect in the background, every 2 s at most.
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    // Connection errors are reported through `increment` (once per outage), not per retry.
    this.redis.on('error', () => undefined);
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    if (now < this.openUntil) return this.fallback.increment(key, ttl, limit);
    try {
      // Commands fail at once while not connected; a connection being made is given a moment.
      if (this.redis.status !== 'ready') await this.ready();
      const [hits, msLeft] = (await this.redis.eval(HIT_SCRIPT, 1, `${this.keyPrefix}${key}`, String(ttl))) as [number, number];
      if (this.outageSince !== undefined) {
        this.logger.log({ outageMs: now - this.outageSince }, 'Redis is back: rate limits are shared again');
        this.outageSince = undefined;
      }
      return toRecord(hits, msLeft, limit);
    } catch (error) {
      this.openUntil = now + OPEN_CIRCUIT_MS;
      if (this.outageSince === undefined) {
        this.outageSince = now;
        this.logger.warn({ error: (error as Error).message }, 'Redis unreachable: rate limits are counted in this process until it is back');
      }
      return this.fallback.increment(key, ttl, limit);
    }
  }

  /** The open window of `key` (no hits when none is open), read without counting a hit; in this process while Redis is out. */
  async peek(key: string, limit: number): Promise<ThrottlerStorageRecord> {
    if (Date.now() < this.openUntil || this.redis.status !== 'ready') return this.fallback.peek(key, limit);
    try {
      const [[, hits], [, msLeft]] = (await this.redis.multi().get(`${this.keyPrefix}${key}`).pttl(`${this.keyPrefix}${key}`).exec()) as [
        [null, string | null],
        [null, number],
      ];
      return toRecord(Number(hits ?? 0), Math.max(0, msLeft), limit);
    } catch {
      return this.fallback.peek(key, limit);
    }
  }

  /** Resolves once connected, or rejects after `COMMAND_TIMEOUT_MS`. */
  private ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.redis.off('ready', onReady);
        reject(new Error(`not connected (${this.redis.status})`));
      }, COMMAND_TIMEOUT_MS);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      this.redis.once('ready', onReady);
    });
  }

  state(): LimiterState {
    return this.outageSince === undefined
      ? { store: 'redis', degraded: false }
      : { store: 'redis', degraded: true, countedIn: 'process', since: new Date(this.outageSince).toISOString() };
  }

  async close(): Promise<void> {
    this.fallback.close();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
