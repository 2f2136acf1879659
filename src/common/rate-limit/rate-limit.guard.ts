import { type ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { OPERATION_METADATA, type OperationOptions, type RateLimitName } from '../decorators/operation.decorator.js';
import { ApiError } from '../errors.js';

export const WORKSPACE_GET_LIMIT_MESSAGE = 'Rate limit exceeded. Try again after 1 minute.';
export const LIMIT_MESSAGE = 'Rate limit exceeded for this endpoint. Try again later.';

/** The named limits an operation counts against: its declared ones, plus the per-key one for A operations. */
export function limitsOf(operation: OperationOptions | undefined): RateLimitName[] {
  if (!operation) return [];
  const names = [...(operation.rateLimits ?? [])];
  if (operation.auth === 'apiKey') names.push('apiKey');
  return names;
}

export function operationOf(context: ExecutionContext): OperationOptions | undefined {
  return Reflect.getMetadata(OPERATION_METADATA, context.getHandler()) as OperationOptions | undefined;
}

/**
 * `@nestjs/throttler`'s guard with the contract's error envelope. Runs after the credentials
 * guard, so per-key and per-workspace limits track the authenticated principal. Counters are
 * keyed by limit name and tracker only, so a per-key limit spans all operations.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }

  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const message = limitsOf(operationOf(context)).includes('workspaceGet') ? WORKSPACE_GET_LIMIT_MESSAGE : LIMIT_MESSAGE;
    throw new ApiError('RESOURCE_EXHAUSTED', message, undefined, { retryAfterSeconds: detail.timeToBlockExpire });
  }
}
