import { type ExecutionContext, Injectable } from '@nestjs/common';
import { HttpAdapterHost, Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { Metrics } from '../metrics.js';
import { limitsOf, OPERATION_METADATA, type OperationOptions, type RateLimitName } from '../decorators/operation.decorator.js';
import { ApiError } from '../errors.js';
import { limitItem, policyItem, RATE_LIMIT_FIELD, RATE_LIMIT_POLICY_FIELD, type RateLimitFields } from './rate-limit-headers.js';

export const WORKSPACE_GET_LIMIT_MESSAGE = 'Rate limit exceeded. Try again after 1 minute.';
export const LIMIT_MESSAGE = 'Rate limit exceeded for this endpoint. Try again later.';

export function operationOf(context: ExecutionContext): OperationOptions | undefined {
  return Reflect.getMetadata(OPERATION_METADATA, context.getHandler()) as OperationOptions | undefined;
}

/** A limit a route counts against, with its `RateLimit-Policy` item worked out once. */
interface RouteLimit {
  throttler: ThrottlerOptions;
  name: string;
  limit: number;
  ttl: number;
  policy: string;
}

/**
 * `@nestjs/throttler`'s guard with the contract's error envelope. Runs after the credentials
 * guard, so per-key and per-workspace limits track the authenticated principal. Counters are
 * keyed by limit name and tracker only, so a per-key limit spans all operations.
 *
 * `canActivate` counts only the limits the route names (worked out once per handler) instead
 * of the base class's walk over every named throttler with its metadata look-ups: this guard
 * runs on every request, and the walk cost several percent of a cheap read.
 *
 * Every answer of a limited operation carries `RateLimit-Policy` and `RateLimit`
 * (draft-ietf-httpapi-ratelimit-headers-11) for the limits the request counted against: the
 * policy items are built once per route, the remaining quota from the counter just incremented,
 * so the fields cost two short strings and no further look-up.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly limitsByHandler = new WeakMap<object, RouteLimit[]>();

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly metrics: Metrics,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    let limits = this.limitsByHandler.get(handler);
    if (!limits) {
      const names = limitsOf(operationOf(context));
      limits = this.throttlers
        .filter((t) => names.includes(t.name as RateLimitName) && Number(t.limit) > 0)
        .map((throttler) => ({
          throttler,
          name: throttler.name!,
          limit: Number(throttler.limit),
          ttl: Number(throttler.ttl),
          policy: policyItem(throttler.name!, Number(throttler.limit), Number(throttler.ttl)),
        }));
      this.limitsByHandler.set(handler, limits);
    }
    if (!limits.length) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<Record<string, unknown>>();
    let fields: RateLimitFields | undefined;
    for (const { throttler, name, limit, ttl, policy } of limits) {
      const tracker = await throttler.getTracker!(request, context);
      if (tracker === '') continue;
      const record = await this.storageService.increment(this.generateKey(context, tracker, name), ttl, limit, ttl, name);
      const left = limitItem(name, limit - record.totalHits, record.isBlocked ? record.timeToBlockExpire : record.timeToExpire);
      fields = fields ? { policy: `${fields.policy}, ${policy}`, limit: `${fields.limit}, ${left}` } : { policy, limit: left };
      if (record.isBlocked) {
        this.metrics.rateLimited.inc({ limit: name });
        // The exception filter writes the fields with Retry-After.
        throw this.refusal(context, record.timeToBlockExpire, fields);
      }
    }
    if (fields) {
      const response = http.getResponse<unknown>();
      this.adapterHost.httpAdapter.setHeader(response, RATE_LIMIT_POLICY_FIELD, fields.policy);
      this.adapterHost.httpAdapter.setHeader(response, RATE_LIMIT_FIELD, fields.limit);
    }
    return true;
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw this.refusal(context, detail.timeToBlockExpire);
  }

  private refusal(context: ExecutionContext, retryAfterSeconds: number, rateLimit?: RateLimitFields): ApiError {
    const message = limitsOf(operationOf(context)).includes('workspaceGet') ? WORKSPACE_GET_LIMIT_MESSAGE : LIMIT_MESSAGE;
    return new ApiError('RESOURCE_EXHAUSTED', message, undefined, { retryAfterSeconds, ...(rateLimit ? { rateLimit } : {}) });
  }
}
