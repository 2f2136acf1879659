import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, ApiSchema, type ApiSchemaOptions, getSchemaPath } from '@nestjs/swagger';
import { type ErrorCode, HTTP_STATUS_BY_CODE } from './errors.js';

/**
 * OpenAPI descriptions of answers: each operation names the class of its success `result`
 * (a `SuccessResult` subclass, one per shape, beside the request DTOs of its module), and its
 * error statuses follow from its credential level, limits and the errors it declares.
 */

/** An object schema as `@ApiProperty` takes it. */
export interface ObjectSchema {
  type: 'object';
  additionalProperties: true | { $ref: string };
  description?: string;
}

/** Classes only referenced by `$ref` (in `mapOf`); `openApiDocument` adds them to the document. */
const referenced = new Set<Type<unknown>>();

/** A JSON object whose values are `type` under keys the caller chose (ids, names). */
export function mapOf(type: Type<unknown>, description?: string): ObjectSchema {
  referenced.add(type);
  return { type: 'object', additionalProperties: { $ref: getSchemaPath(type) }, ...(description ? { description } : {}) };
}

/**
 * `type` or null. In OpenAPI 3.0 `nullable` beside a `$ref` does not admit null, so: one of the
 * two.
 */
export function nullableRef(type: Type<unknown>, description?: string): { oneOf: [{ $ref: string }, NullSchema]; description?: string } {
  referenced.add(type);
  return { oneOf: [{ $ref: getSchemaPath(type) }, { type: 'object', nullable: true, enum: [null] }], ...(description ? { description } : {}) };
}

interface NullSchema {
  type: 'object';
  nullable: true;
  enum: [null];
}

/**
 * The class's schema also allows keys beyond its declared properties: caller metadata kept beside
 * the known fields (organizations, documents, users, an activity's `metadata`). `ApiSchema`
 * copies every option but `name` into the schema, though its options type only names `description`.
 */
export function WithMetadata(description = 'Any other key is caller metadata (any JSON value).'): ClassDecorator {
  return ApiSchema({ description, additionalProperties: true } as ApiSchemaOptions);
}

/** A JSON object whose values are lists of `type` under keys the caller chose (users by document id). */
export function mapOfLists(
  type: Type<unknown>,
  description?: string,
): { type: 'object'; additionalProperties: { type: 'array'; items: { $ref: string } }; description?: string } {
  referenced.add(type);
  return { type: 'object', additionalProperties: { type: 'array', items: { $ref: getSchemaPath(type) } }, ...(description ? { description } : {}) };
}

/** A list of `type`, for a `oneOf` (which takes schemas, not classes). */
export function listOf(type: Type<unknown>): { type: 'array'; items: { $ref: string } } {
  referenced.add(type);
  return { type: 'array', items: { $ref: getSchemaPath(type) } };
}

/** A free-form JSON object the service stores and returns as sent (metadata, custom fields). */
export function anyObject(description?: string): ObjectSchema {
  return { type: 'object', additionalProperties: true, ...(description ? { description } : {}) };
}

/** Classes only referenced by `$ref` (in `mapOf`), which the document must still define. */
export function referencedModels(): Type<unknown>[] {
  return [...referenced];
}

/** `result` of a success envelope: every success answer's `status` and `message` (contract 1.2). */
export class SuccessResult {
  @ApiProperty({ enum: ['success'] }) status!: 'success';
  @ApiProperty({ description: "The operation's success message." }) message!: string;
}

/** `result` of only `status` and `message`. */
export class StatusOnlyResult extends SuccessResult {}

/** `result` whose `data` is always `null`. */
export class NullDataResult extends SuccessResult {
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: false, description: 'Always null.' }) data!: null;
}

/** `result` whose `data` is `{ success: true }` (upstream's answer of live state and presence writes). */
export class SuccessFlagResult extends SuccessResult {
  @ApiProperty({ type: 'object', properties: { success: { type: 'boolean' } }, required: ['success'] }) data!: { success: boolean };
}

/** One item's outcome in a batch write (rest-interface convention 4). */
export class ItemResult {
  @ApiProperty() success!: boolean;
  @ApiProperty() id!: string;
  @ApiProperty() message!: string;
}

/** `result` of a batch write: each item's outcome under its id. */
export class ItemResultsResult extends SuccessResult {
  @ApiProperty(mapOf(ItemResult, "Each item's outcome, under its id.")) data!: Record<string, ItemResult>;
}

/** The error envelope's body (contract 1.2). */
export class ErrorBody {
  @ApiProperty({ enum: Object.keys(HTTP_STATUS_BY_CODE) }) status!: ErrorCode;
  @ApiProperty() message!: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Which items or ids the error concerns.' }) details?: Record<string, unknown>;
}

export class ErrorEnvelope {
  @ApiProperty({ type: ErrorBody }) error!: ErrorBody;
}

/** What an operation's error statuses follow from. */
export interface ErrorSources {
  auth: 'apiKey' | 'workspace' | 'public' | 'console';
  /** Bad workspace credentials answer NOT_FOUND / UNAUTHENTICATED rather than PERMISSION_DENIED. */
  distinctWorkspaceAuthErrors: boolean;
  /** The named limits it counts against (none: not rate limited). */
  rateLimits: readonly string[];
  /** Errors of the operation itself beyond the ones every operation can answer. */
  errors: ErrorCode[];
}

const DESCRIPTION: Record<number, string> = {
  400: 'INVALID_ARGUMENT (bad or missing field, body or header) or FAILED_PRECONDITION.',
  401: 'UNAUTHENTICATED: wrong workspace auth token (workspace get), or a console session that expired or was signed out.',
  403: 'PERMISSION_DENIED: the credentials are not valid for this operation.',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS or ABORTED',
  413: 'INVALID_ARGUMENT: the body is over BODY_LIMIT.',
  429: 'RESOURCE_EXHAUSTED: a rate limit; `Retry-After` says when to retry, `RateLimit-Policy` and `RateLimit` which limit (`r=0`).',
  500: 'INTERNAL: an unexpected failure (with `details.requestId`), or, where the contract asks for it, a batch partly skipped (with the items in `details`).',
  503: 'UNAVAILABLE: the database is unreachable or the service is shutting down; retry.',
};

/** What every answer of a rate-limited operation carries (`rate-limit-headers.ts`). */
function rateLimitFields(limits: readonly string[]): string {
  const [first] = limits;
  return (
    `Success. Answers that count against its limits (${limits.map((name) => `\`${name}\``).join(', ')}; those turned on) carry \`RateLimit-Policy\` and \`RateLimit\` (draft-ietf-httpapi-ratelimit-headers-11), errors too: ` +
    `\`"${first}";q=<quota>;w=<window seconds>\` and \`"${first}";r=<requests left>;t=<seconds until the window ends>\`.`
  );
}

/** The success answer with `result`, and every error status with the error envelope. */
export function operationResponses(result: Type<object>, sources: ErrorSources): MethodDecorator {
  const statuses = new Set<number>([400, 413, 500, 503]);
  // Every operation with credentials may also be called with a console session, which answers
  // 401 once it has expired or been signed out.
  if (sources.auth !== 'public') for (const status of sources.distinctWorkspaceAuthErrors ? [401, 403, 404] : [401, 403]) statuses.add(status);
  if (sources.rateLimits.length) statuses.add(429);
  for (const code of sources.errors) statuses.add(HTTP_STATUS_BY_CODE[code]);
  return applyDecorators(
    ApiExtraModels(result),
    ApiResponse({
      status: 200,
      description: sources.rateLimits.length ? rateLimitFields(sources.rateLimits) : 'Success.',
      schema: { type: 'object', required: ['result'], properties: { result: { $ref: getSchemaPath(result) } } },
    }),
    ...[...statuses].sort().map((status) => ApiResponse({ status, description: DESCRIPTION[status] ?? 'Error.', type: ErrorEnvelope })),
  );
}
