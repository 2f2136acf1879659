import { Injectable, Req, Res } from '@nestjs/common';
import { JsonText, type ResultShape, resultFields, successEnvelope, successEnvelopeBytes, WithMessage } from '../envelope.js';
import { IDEMPOTENCY_KEY_HEADER } from '../idempotency.js';
import type { ServiceRequest } from '../request-context.js';
import { IdempotentAnswers, type ResponseHeaders } from './idempotent-answers.js';

/** What answering needs of an operation's declaration (`OperationOptions`). */
export interface AnsweredOperation {
  /** The success `message`. */
  message: string;
  result?: ResultShape;
}

/** A request as the HTTP pipeline hands it on: with the application's `OperationAnswers`. */
export type AnswerableRequest = ServiceRequest & { operationAnswers?: OperationAnswers };

/**
 * What an operation answers: its handler's result in the success envelope with the operation's
 * message; with an `Idempotency-Key`, through `IdempotentAnswers`, which keeps that very answer.
 *
 * Every operation's handler is wrapped in `answer` by its `Operation` declaration
 * (`Answered`), not by a Nest interceptor: a route with any interceptor runs Nest's
 * interceptor pipeline (rxjs: a deferred Observable, a ReplaySubject, AsyncResources), which cost
 * 14% of the cheapest operation's throughput (domains/get, 5,250 -> 6,080 requests/s, three
 * alternated pairs). A module may still add interceptors of its own to its routes.
 */
@Injectable()
export class OperationAnswers {
  constructor(private readonly idempotent: IdempotentAnswers) {}

  answer(operation: AnsweredOperation, request: ServiceRequest, response: ResponseHeaders, run: () => unknown): Promise<unknown> {
    const answer = async () => envelope(operation, await run(), response);
    return request.headers[IDEMPOTENCY_KEY_HEADER] === undefined ? answer() : this.idempotent.around(request, response, answer);
  }
}

/** The handler's result as the operation's success envelope (see `ResultShape`); answers already encoded go as bytes. */
function envelope(operation: AnsweredOperation, returned: unknown, response: ResponseHeaders): unknown {
  const shape = operation.result ?? 'data';
  if (shape === 'only') return { result: returned };
  if (returned instanceof WithMessage) return successEnvelope(returned.message, { data: returned.data ?? null });
  const fields = resultFields(shape, returned);
  if (!(fields.data instanceof JsonText)) return successEnvelope(operation.message, fields);
  const { data, ...beside } = fields;
  response.header('content-type', 'application/json; charset=utf-8');
  return successEnvelopeBytes(operation.message, data, beside);
}

/**
 * Makes a handler answer through `OperationAnswers` (`Operation` applies it to every declared
 * operation; a route outside the document may take it alone): the handler is replaced
 * by one that takes two more parameters (the request and, passing the result through, the
 * response), which Nest fills as it fills the declared ones, and calls the original with its
 * own. The HTTP pipeline puts the application's `OperationAnswers` on every request. Metadata
 * that decorators applied before this one put on the original handler is copied to the new one.
 */
export function Answered(operation: AnsweredOperation): MethodDecorator {
  return (target, key, descriptor) => {
    const original = descriptor.value as unknown as (...args: unknown[]) => unknown;
    const declared = ((Reflect.getMetadata('design:paramtypes', target, key) as unknown[] | undefined) ?? []).length;
    const handler = function (this: unknown, ...args: unknown[]): Promise<unknown> {
      const request = args[declared] as AnswerableRequest;
      const answers = request.operationAnswers;
      if (!answers) throw new Error('The HTTP pipeline gave this request no OperationAnswers.');
      return answers.answer(operation, request, args[declared + 1] as ResponseHeaders, () => original.apply(this, args.slice(0, declared)));
    };
    Object.defineProperty(handler, 'name', { value: original.name });
    for (const metadataKey of Reflect.getOwnMetadataKeys(original)) Reflect.defineMetadata(metadataKey, Reflect.getOwnMetadata(metadataKey, original), handler);
    (descriptor as TypedPropertyDescriptor<unknown>).value = handler;
    Req()(target, key, declared);
    Res({ passthrough: true })(target, key, declared + 1);
  };
}
