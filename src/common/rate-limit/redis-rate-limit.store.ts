import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface.js';
import { Redis } from 'ioredis';
import { toRecord } from './memory-rate-limit.store.js';

/** INCR and open the window on the first hit, atomically; returns hits and ms left. */
const HIT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl}`;

/**
 * The same fixed windows as `MemoryRateLimitStore`, kept in Redis so several instances share
 * them. If Redis cannot be reached the request is let through and a warning logged: a limiter
 * outage should not become a service outage.
 */
export class RedisRateLimitStore implements ThrottlerStorage {
  private readonly logger = new Logger('RedisRateLimitStore');
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly keyPrefix: string,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
    this.redis.on('error', (error: Error) => this.logger.warn(`Redis: ${error.message}`));
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    try {
      const [hits, msLeft] = (await this.redis.eval(HIT_SCRIPT, 1, `${this.keyPrefix}${key}`, String(ttl))) as [number, number];
      return toRecord(hits, msLeft, limit);
    } catch (error) {
      this.logger.warn(`Rate limit not applied, Redis unavailable: ${(error as Error).message}`);
      return toRecord(0, ttl, limit);
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
