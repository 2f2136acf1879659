import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerModule, type ThrottlerOptions, type ThrottlerStorage } from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config.js';
import type { RateLimitName } from '../decorators/operation.decorator.js';
import type { ServiceRequest } from '../request-context.js';
import { MemoryRateLimitStore } from './memory-rate-limit.store.js';
import { RedisRateLimitStore } from './redis-rate-limit.store.js';

/** The counter store (memory, or Redis with a memory fallback); `/health` reads its state. */
export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');
export type RateLimitStore = MemoryRateLimitStore | RedisRateLimitStore;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

interface LimitDefinition {
  limit: (config: AppConfig) => number;
  windowMs: number;
  /** Who the counter belongs to; undefined: this request does not count (e.g. no e-mail to track yet). */
  tracker: (request: ServiceRequest) => string | undefined;
}

/** Contract 1.6, one row per named limit. */
const LIMITS: Record<RateLimitName, LimitDefinition> = {
  apiKey: { limit: (c) => c.rateLimits.apiKeyPerMinute, windowMs: MINUTE, tracker: (r) => r.apiKeyPrincipal?.apiKeyId },
  workspaceGet: { limit: (c) => c.rateLimits.workspaceGetPerMinute, windowMs: MINUTE, tracker: (r) => r.workspacePrincipal?.workspaceId },
  workspaceCreate: { limit: (c) => c.rateLimits.workspaceCreatePerHour, windowMs: HOUR, tracker: (r) => r.ip },
  loginLink: { limit: (c) => c.rateLimits.loginLinkPerMinute, windowMs: MINUTE, tracker: (r) => r.ip },
  // Verifying is not limited by the contract; a counter of its own keeps token guessing slow
  // without stopping a user who asked for several links.
  loginVerify: { limit: (c) => c.rateLimits.loginVerifyPerMinute, windowMs: MINUTE, tracker: (r) => r.ip },
  // Public and answers whether an address has an account: slow down walking a list of addresses.
  emailStatus: { limit: (c) => c.rateLimits.emailStatusPerMinute, windowMs: MINUTE, tracker: (r) => r.ip },
  // Read from the raw body: the limit must count requests that later fail validation too.
  loginLinkEmail: {
    limit: (c) => c.rateLimits.loginLinkPerEmailPerHour,
    windowMs: HOUR,
    tracker: (r) => {
      const email = (r.body as { data?: { email?: unknown } } | undefined)?.data?.email;
      return typeof email === 'string' && email.trim() !== '' ? email.trim().toLowerCase() : undefined;
    },
  },
};

function throttlersFor(config: AppConfig): ThrottlerOptions[] {
  return (Object.entries(LIMITS) as [RateLimitName, LimitDefinition][]).map(([name, definition]) => ({
    name,
    limit: definition.limit(config),
    ttl: definition.windowMs,
    setHeaders: false,
    getTracker: (request: Record<string, unknown>) => definition.tracker(request as unknown as ServiceRequest) ?? '',
  }));
}

@Module({
  providers: [
    {
      provide: RATE_LIMIT_STORE,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => (config.redisUrl ? new RedisRateLimitStore(config.redisUrl, config.redisKeyPrefix) : new MemoryRateLimitStore()),
    },
  ],
  exports: [RATE_LIMIT_STORE],
})
export class RateLimitStoreModule implements OnApplicationShutdown {
  constructor(@Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

/** Rate limits of contract 1.6 through `@nestjs/throttler`, counted in memory or in Redis. */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStoreModule],
      inject: [AppConfig, RATE_LIMIT_STORE],
      useFactory: (config: AppConfig, storage: ThrottlerStorage) => ({ throttlers: throttlersFor(config), storage }),
    }),
  ],
  exports: [ThrottlerModule],
})
export class RateLimitModule {}
