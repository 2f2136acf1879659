import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiError } from '../errors.js';
import type { ServiceRequest } from '../request-context.js';
import { wireValueProblem } from '../wire-values.js';

export const MALFORMED_BODY_MESSAGE = 'Request body must be a JSON object with a "data" object.';

/**
 * The request's `data` object, checked for the envelope shape and for values no field may hold
 * (`wireValueProblem`) here, and validated against the parameter's DTO class by the global
 * ValidationPipe. Body problems were kept aside by the
 * body reader so that credentials are checked before any of this (contract 1.1).
 */
export const RequestData = createParamDecorator((_: unknown, context: ExecutionContext): Record<string, unknown> => {
  const request = context.switchToHttp().getRequest<ServiceRequest>();
  const problem = request.bodyProblem;
  if (problem?.kind === 'too-large') {
    throw new ApiError('INVALID_ARGUMENT', `Request body exceeds the limit of ${problem.limit} bytes.`, undefined, { httpStatus: 413 });
  }
  // The contract's message for any body of the wrong shape (1.1); what the parser said is its issue.
  if (problem?.kind === 'malformed' && problem.jsonError !== undefined)
    throw new ApiError('INVALID_ARGUMENT', MALFORMED_BODY_MESSAGE, { issues: [{ path: 'body', message: notJsonMessage(problem.jsonError) }] });
  const body: unknown = request.body;
  if (problem || !isPlainObject(body) || !isPlainObject(body.data)) throw new ApiError('INVALID_ARGUMENT', MALFORMED_BODY_MESSAGE);
  const valueProblem = wireValueProblem(body.data);
  if (valueProblem) throw new ApiError('INVALID_ARGUMENT', valueProblem);
  return body.data;
});

/** A body that did not parse, with the parser's words (`Unexpected end of JSON input`, a position). */
export function notJsonMessage(jsonError: string): string {
  return `Request body is not valid JSON: ${jsonError}${/[.!]$/.test(jsonError) ? '' : '.'}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
