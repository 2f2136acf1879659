import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
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

export const WORKSPACE_GET_LIMIT_MESSAGE = 'Rate limit exceeded. Try again after 1 minute.';
export const LIMIT_MESSAGE = 'Rate limit exceeded for this endpoint. Try again later.';

export function operationOf(context: ExecutionContext): OperationOptions | undefined {
  return Reflect.getMetadata(OPERATION_METADATA, context.getHandler()) as OperationOptions | undefined;
}

/**
 * `@nestjs/throttler`'s guard with the contract's error envelope. Runs after the credentials
 * guard, so per-key and per-workspace limits track the authenticated principal. Counters are
 * keyed by limit name and tracker only, so a per-key limit spans all operations.
 *
 * `canActivate` counts only the limits the route names (worked out once per handler) instead
 * of the base class's walk over every named throttler with its metadata look-ups: this guard
 * runs on every request, and the walk cost several percent of a cheap read.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly limitsByHandler = new WeakMap<object, ThrottlerOptions[]>();

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly metrics: Metrics,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    let throttlers = this.limitsByHandler.get(handler);
    if (!throttlers) {
      const names = limitsOf(operationOf(context));
      throttlers = this.throttlers.filter((t) => names.includes(t.name as RateLimitName) && Number(t.limit) > 0);
      this.limitsByHandler.set(handler, throttlers);
    }
    if (!throttlers.length) return true;
    const request = context.switchToHttp().getRequest<Record<string, unknown>>();
    for (const throttler of throttlers) {
      const tracker = await throttler.getTracker!(request, context);
      if (tracker === '') continue;
      const limit = Number(throttler.limit);
      const ttl = Number(throttler.ttl);
      const record = await this.storageService.increment(this.generateKey(context, tracker, throttler.name!), ttl, limit, ttl, throttler.name!);
      if (record.isBlocked) {
        this.metrics.rateLimited.inc({ limit: throttler.name! });
        await this.throwThrottlingException(context, { limit, ttl, key: '', tracker, ...record });
      }
    }
    return true;
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const message = limitsOf(operationOf(context)).includes('workspaceGet') ? WORKSPACE_GET_LIMIT_MESSAGE : LIMIT_MESSAGE;
    throw new ApiError('RESOURCE_EXHAUSTED', message, undefined, { retryAfterSeconds: detail.timeToBlockExpire });
  }
}
