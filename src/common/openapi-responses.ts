import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, ApiSchema, type ApiSchemaOptions, getSchemaPath } from '@nestjs/swagger';
import { ApiError, type ErrorCode, HTTP_STATUS_BY_CODE, INVALID_CREDENTIALS } from './errors.js';

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
  /**
   * Errors of the operation itself beyond the ones every operation can answer: a code, or the
   * error itself (from its module's error factory), whose message the document's example shows.
   */
  errors: (ErrorCode | ApiError)[];
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

/** An error as the error envelope carries it. */
interface ErrorExample {
  status: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** The body limit the 413 examples name: the default `BODY_LIMIT`; `openApiDocument` writes the configured one (`withBodyLimit`). */
const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
export const bodyLimitMessage = (bytes: number) => `Request body exceeds the limit of ${bytes} bytes.`;

/**
 * The errors every operation of these sources can answer, by status, as the service words them
 * (credentials guard, request body checks, rate limit guard, exception filter; the examples test
 * compares them with real answers).
 */
function commonErrors(sources: ErrorSources): Map<number, ErrorExample[]> {
  const common = new Map<number, ErrorExample[]>([
    [400, [{ status: 'INVALID_ARGUMENT', message: 'Request body must be a JSON object with a "data" object.' }]],
    [413, [{ status: 'INVALID_ARGUMENT', message: bodyLimitMessage(DEFAULT_BODY_LIMIT_BYTES) }]],
    [500, [{ status: 'INTERNAL', message: 'An internal error occurred.', details: { requestId: 'req_01JDQ6D7E8F9G0H1J2K3L4M5N6' } }]],
    [503, [{ status: 'UNAVAILABLE', message: 'The service is temporarily unavailable. Try again later.' }]],
  ]);
  if (sources.auth !== 'public') {
    // Every operation with credentials may also be called with a console session: 401 once it
    // has expired or been signed out, 403 without its CSRF header.
    const session: ErrorExample = { status: 'UNAUTHENTICATED', message: 'Console session missing, expired or signed out.' };
    const csrf: ErrorExample = {
      status: 'PERMISSION_DENIED',
      message: 'Console request refused: it must come from the console itself, with its x-console-csrf header.',
    };
    const credentials: ErrorExample | undefined =
      sources.auth === 'apiKey'
        ? { status: 'PERMISSION_DENIED', message: INVALID_CREDENTIALS }
        : sources.auth === 'workspace' && !sources.distinctWorkspaceAuthErrors
          ? { status: 'PERMISSION_DENIED', message: 'Invalid workspace credentials.' }
          : undefined;
    if (sources.distinctWorkspaceAuthErrors) {
      common.set(401, [{ status: 'UNAUTHENTICATED', message: 'Invalid auth token for workspace.' }, session]);
      common.set(404, [{ status: 'NOT_FOUND', message: 'Workspace not found.' }]);
    } else common.set(401, [session]);
    common.set(403, credentials ? [credentials, csrf] : [csrf]);
  }
  if (sources.rateLimits.length) common.set(429, [{ status: 'RESOURCE_EXHAUSTED', message: 'Rate limit exceeded for this endpoint. Try again later.' }]);
  return common;
}

/** The error example of a declared error; a bare code gets its status's generic wording. */
function declaredError(error: ErrorCode | ApiError): [number, ErrorExample] {
  if (error instanceof ApiError)
    return [error.httpStatus, { status: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }];
  return [HTTP_STATUS_BY_CODE[error], { status: error, message: GENERIC_MESSAGE[error] }];
}

/** Wording for a code an operation declares without its error (prefer declaring the error itself). */
const GENERIC_MESSAGE: Record<ErrorCode, string> = {
  INVALID_ARGUMENT: 'A field is invalid.',
  FAILED_PRECONDITION: 'The operation is not allowed in the current state.',
  UNAUTHENTICATED: 'The credentials are wrong.',
  PERMISSION_DENIED: 'The credentials are not valid for this operation.',
  NOT_FOUND: 'The record does not exist.',
  ALREADY_EXISTS: 'A record with this identity already exists.',
  ABORTED: 'A concurrent change won; retry.',
  RESOURCE_EXHAUSTED: 'A quota is exhausted.',
  INTERNAL: 'An internal error occurred.',
  UNAVAILABLE: 'The service is temporarily unavailable. Try again later.',
};

/**
 * Each error status with its examples: the common errors of the sources, then the declared ones
 * (one example per distinct code and message; a status shows only codes it really carries).
 */
export function errorExamples(sources: ErrorSources): Map<number, ErrorExample[]> {
  const byStatus = commonErrors(sources);
  // Errors declared as themselves first: a bare code only adds its generic wording where no
  // example of that code exists.
  const declared = [...sources.errors].sort((a, b) => Number(typeof a === 'string') - Number(typeof b === 'string'));
  for (const error of declared) {
    const [status, example] = declaredError(error);
    const examples = byStatus.get(status) ?? [];
    const known =
      typeof error === 'string'
        ? examples.some((other) => other.status === error)
        : examples.some((other) => other.status === example.status && other.message === example.message);
    if (!known) examples.push(example);
    byStatus.set(status, examples);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** An example's name in the document: its code, and its message when the status has several of one code. */
function exampleName(example: ErrorExample, all: ErrorExample[]): string {
  return all.filter((other) => other.status === example.status).length > 1 ? `${example.status}: ${example.message}` : example.status;
}

/** The success answer with `result`, and every error status with the error envelope and an example of each error it carries. */
export function operationResponses(result: Type<object>, sources: ErrorSources): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(result),
    ApiResponse({
      status: 200,
      description: sources.rateLimits.length ? rateLimitFields(sources.rateLimits) : 'Success.',
      schema: { type: 'object', required: ['result'], properties: { result: { $ref: getSchemaPath(result) } } },
    }),
    ...[...errorExamples(sources)].map(([status, examples]) =>
      ApiResponse({
        status,
        description: DESCRIPTION[status] ?? 'Error.',
        type: ErrorEnvelope,
        examples: Object.fromEntries(examples.map((example) => [exampleName(example, examples), { summary: example.message, value: { error: example } }])),
      }),
    ),
  );
}

type ResponseWithExamples = { content?: Record<string, { examples?: Record<string, { value?: { error?: ErrorExample } }> }> };

/** The document with its 413 examples naming `bytes`, the configured `BODY_LIMIT`. */
export function withBodyLimit<T extends { paths: Record<string, Partial<Record<'get' | 'post', { responses?: Record<string, unknown> }>>> }>(
  document: T,
  bytes: number,
): T {
  for (const item of Object.values(document.paths)) {
    const responses = item.post?.responses;
    const tooLarge = responses?.['413'] as ResponseWithExamples | undefined;
    const media = tooLarge?.content?.['application/json'];
    if (!responses || !media?.examples) continue;
    // Copies: operations of one handler (aliases) may share these objects, and apps of other configurations their metadata.
    const examples = Object.fromEntries(
      Object.entries(media.examples).map(([name, example]) => [
        name,
        example.value?.error?.message.startsWith('Request body exceeds')
          ? { ...example, value: { error: { ...example.value.error, message: bodyLimitMessage(bytes) } } }
          : example,
      ]),
    );
    responses['413'] = { ...tooLarge, content: { ...tooLarge!.content, 'application/json': { ...media, examples } } };
  }
  return document;
}
