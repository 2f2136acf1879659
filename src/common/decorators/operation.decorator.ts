import { applyDecorators, HttpCode, Post, SetMetadata, type Type } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiSecurity, getSchemaPath } from '@nestjs/swagger';
import { Answered } from '../answers/operation-answers.js';
import type { ApiError, ErrorCode } from '../errors.js';
import type { ResultShape } from '../envelope.js';
import { operationResponses, type SuccessResult } from '../openapi-responses.js';

/** A request's `data` as an OpenAPI example. */
export type RequestExample = Record<string, unknown>;

/**
 * Credential levels of rest-interface part 5: API-key (A), workspace (W), public (P); and the
 * console's own session operations (sign-in state, sign-out), which take the session cookie.
 */
export type AuthLevel = 'apiKey' | 'workspace' | 'public' | 'console';

/** Named rate limits of contract 1.6 an operation counts against (API-key ops count against `apiKey` always). */
export type RateLimitName = 'apiKey' | 'workspaceGet' | 'workspaceCreate' | 'loginLink' | 'loginLinkEmail' | 'loginVerify' | 'emailStatus';

export interface OperationOptions {
  auth: AuthLevel;
  /** The success `message` (contract parts 2–8). */
  message: string;
  /** How the handler's answer fills `result` (see `ResultShape`); `data` unless said. */
  result?: ResultShape;
  /**
   * The class of the success answer's `result` (OpenAPI): a `SuccessResult` subclass, or for the
   * one operation whose `result` has no status and message (`result: 'only'`), a class of its fields.
   */
  response: Type<SuccessResult> | Type<object>;
  /**
   * Other paths of the same operation: upstream's `/v1` paths, which a migrating client still
   * calls. Each answers exactly as `path` does (the v1 requests are subsets of the v2 ones).
   */
  aliases?: string[];
  /**
   * Errors of this operation beyond those of every operation of its level (OpenAPI): the errors
   * themselves, from their module's error factory (the document's examples show their messages),
   * or bare codes.
   */
  errors?: (ErrorCode | ApiError)[];
  /** OpenAPI summary: what the operation does, in a short sentence (default: the success message). */
  summary?: string;
  /**
   * OpenAPI: the request's `data` as Swagger UI's "Try it out" offers it. The examples of the
   * document succeed when run in its order on a fresh API key (test/openapi-examples.test.ts runs
   * them): ids name what earlier examples created, optional paging fields are left out, and
   * deletes remove what an example made for that purpose. Operations without fields default to
   * `{}`.
   */
  example?: RequestExample;
  /** OpenAPI: the example of an alias path, where running `example` a second time would not succeed (a delete of ids already gone). */
  aliasExamples?: Record<string, RequestExample>;
  /**
   * OpenAPI: fields of `example` whose value only an earlier answer holds (an id the service
   * made): the field's JSON pointer in `data` (`/endpointId`) → the operation (its path) that
   * answers it and the JSON pointer in that answer (`/result/data/id`). The document shows them
   * as links of that operation's answer, which the examples test follows.
   */
  exampleFrom?: Record<string, { operation: string; answer: string }>;
  /**
   * OpenAPI: listed right after this operation (its path) instead of in declaration order, where
   * the examples need an order the controllers do not have (a delete after the operations still
   * using what it deletes).
   */
  listedAfter?: string;
  /** Extra named limits besides the per-key one API-key operations always count against. */
  rateLimits?: RateLimitName[];
  /**
   * Workspace credential failures answer NOT_FOUND / UNAUTHENTICATED (get workspace) instead
   * of the generic PERMISSION_DENIED the other workspace operations give (contract 1.3).
   */
  distinctWorkspaceAuthErrors?: boolean;
  /**
   * A console operation that only reads the session, answering its CSRF token, so it cannot ask
   * for that token itself (every other console request must carry it).
   */
  consoleSessionRead?: boolean;
}

/**
 * OpenAPI security requirement of each level: both headers of a pair together (one requirement
 * object), so "Try it out" sends them; public operations need none. The scheme names are the
 * ones `openApiDocument` declares.
 */
const SECURITY: Record<AuthLevel, Record<string, string[]> | undefined> = {
  apiKey: { apiKey: [], authToken: [] },
  workspace: { workspaceId: [], workspaceAuthToken: [] },
  // The session's cookie and its CSRF header; `consoleSessionRead` operations take the cookie alone.
  console: { consoleSession: [], consoleCsrf: [] },
  // `openApiDocument` gives operations without a requirement an empty list: "no credentials".
  public: undefined,
};

/** The named limits an operation counts against: its declared ones, plus the per-key one for A operations. */
export function limitsOf(operation: OperationOptions | undefined): RateLimitName[] {
  if (!operation) return [];
  const names = [...(operation.rateLimits ?? [])];
  if (operation.auth === 'apiKey') names.push('apiKey');
  return names;
}

export const OPERATION_METADATA = 'svc:operation';
export const AUTH_METADATA = 'svc:auth';

/** An operation as declared, under each of its paths (its aliases too). */
export interface DeclaredOperation {
  path: string;
  options: OperationOptions;
}

/** Every declared operation by path (the main path and each alias), for `openApiDocument`. */
const DECLARED = new Map<string, DeclaredOperation>();

/** The operation declared at `path` (a main path or an alias). */
export function declaredOperation(path: string): DeclaredOperation | undefined {
  return DECLARED.get(path);
}

/**
 * The one way to declare an operation: `POST <path>`, HTTP 200, its credential level, success
 * message and limits. A handler without it is no route, and the credentials guard refuses any
 * route that carries no auth level, so forgetting auth fails closed.
 */
export function Operation(path: string, options: OperationOptions): MethodDecorator {
  for (const declared of [path, ...(options.aliases ?? [])]) DECLARED.set(declared, { path, options });
  const decorators = [
    Post(options.aliases ? [path, ...options.aliases] : path),
    HttpCode(200),
    Auth(options.auth),
    SetMetadata(OPERATION_METADATA, options),
    // The operationId of each path (aliases too) is set by `openApiDocument`, from the path.
    ApiOperation({ summary: options.summary ?? options.message }),
    ...(SECURITY[options.auth] ? [ApiSecurity(options.consoleSessionRead ? { consoleSession: [] } : SECURITY[options.auth]!)] : []),
    operationResponses(options.response, {
      auth: options.auth,
      distinctWorkspaceAuthErrors: options.distinctWorkspaceAuthErrors === true,
      rateLimits: limitsOf(options),
      errors: options.errors ?? [],
    }),
  ];
  const documented = applyDecorators(...decorators);
  const answered = Answered(options);
  return (target, key, descriptor) => {
    // First: the metadata below goes on the handler that answers.
    answered(target, key, descriptor);
    documented(target, key, descriptor);
    requestBody(target, key)?.(target, key, descriptor);
  };
}

/**
 * OpenAPI `{ data: <request class> }` for the handler's request class: the one parameter whose
 * declared type is a class (the principal's type is an interface, so it is `Object` here).
 */
function requestBody(target: object, key: string | symbol): MethodDecorator | undefined {
  const types = (Reflect.getMetadata('design:paramtypes', target, key) as unknown[] | undefined) ?? [];
  const request = types.find((type): type is new () => object => typeof type === 'function' && type !== Object && type.name.endsWith('Request'));
  if (!request) return undefined;
  return applyDecorators(
    ApiExtraModels(request),
    ApiBody({ required: true, schema: { type: 'object', required: ['data'], properties: { data: { $ref: getSchemaPath(request) } } } }),
  );
}

/** Credential level of a route outside the envelope convention (health, docs). */
export function Auth(level: AuthLevel): MethodDecorator & ClassDecorator {
  return SetMetadata(AUTH_METADATA, level);
}
