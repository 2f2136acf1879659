import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, type Observable } from 'rxjs';
import { OPERATION_METADATA, type OperationOptions } from '../decorators/operation.decorator.js';
import { JsonText, resultFields, successEnvelope, successEnvelopeBytes, WithMessage } from '../envelope.js';
import { IDEMPOTENCY_KEY_HEADER } from '../idempotency.js';
import type { ServiceRequest } from '../request-context.js';
import { IdempotentAnswers } from './idempotent-answers.js';

/**
 * Wraps what an operation handler returns into the success envelope with its message; with an
 * `Idempotency-Key`, the enveloped answer goes through `IdempotentAnswers`. One interceptor for
 * both, so a request without the header pays for one layer and one header read.
 */
@Injectable()
export class SuccessEnvelopeInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly idempotent: IdempotentAnswers,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const operation = this.reflector.get<OperationOptions | undefined>(OPERATION_METADATA, context.getHandler());
    if (!operation) return next.handle();
    const answer = () => this.envelope(context, operation, next);
    return context.switchToHttp().getRequest<ServiceRequest>().headers[IDEMPOTENCY_KEY_HEADER] === undefined
      ? answer()
      : this.idempotent.around(context, answer);
  }

  private envelope(context: ExecutionContext, operation: OperationOptions, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((returned: unknown) => {
        const shape = operation.result ?? 'data';
        if (shape === 'only') return { result: returned };
        if (returned instanceof WithMessage) return successEnvelope(returned.message, { data: returned.data ?? null });
        const fields = resultFields(shape, returned);
        if (!(fields.data instanceof JsonText)) return successEnvelope(operation.message, fields);
        const { data, ...beside } = fields;
        context.switchToHttp().getResponse<{ header(name: string, value: string): void }>().header('content-type', 'application/json; charset=utf-8');
        return successEnvelopeBytes(operation.message, data, beside);
      }),
    );
  }
}
