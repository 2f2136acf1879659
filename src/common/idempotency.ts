import type { OpenAPIObject } from '@nestjs/swagger';
import type { ServiceRequest } from './request-context.js';

/** The request header naming a request to be answered at most once (as Node lower-cases it). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** The response header marking an answer given again for a repeated key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
/** Longest key accepted (Stripe's bound; a UUID is 36). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
/** The refusals a remembered key adds, worded once for the interceptor and the document. */
export const IDEMPOTENCY_KEY_REUSED_MESSAGE = `This Idempotency-Key was already used with another request body on this operation; send a new key for a new request.`;
export const IDEMPOTENCY_KEY_IN_USE_MESSAGE = `A request with this Idempotency-Key is still being processed; retry once it has been answered.`;

/** The INVALID_ARGUMENT message of a bad key. */
export const IDEMPOTENCY_KEY_PROBLEM = `The Idempotency-Key header must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters.`;

/** Whether a sent `Idempotency-Key` header value is a good key (one header, 1–255 printable ASCII characters). */
export function isIdempotencyKey(sent: string | string[]): sent is string {
  return typeof sent === 'string' && sent.length <= IDEMPOTENCY_KEY_MAX_LENGTH && PRINTABLE_ASCII.test(sent);
}

/**
 * Whose keys a request's key is among: its API key, or its workspace (through the console
 * apart, whose answers leave out the tokens a workspace token's answers show). Public and
 * console-session operations have none: their keys are not remembered.
 */
export function scopeOf(request: ServiceRequest): string | undefined {
  if (request.apiKeyPrincipal) return `apiKey:${request.apiKeyPrincipal.apiKeyId}`;
  const workspace = request.workspacePrincipal;
  if (workspace) return `${workspace.viaConsole ? 'consoleWorkspace' : 'workspace'}:${workspace.workspaceId}`;
  return undefined;
}

/**
 * A request body as canonical JSON text (object keys sorted at every level), so a repeat whose
 * keys come in another order is the same request; undefined for a body there is none of, or one
 * too deeply nested to serialise (the operation refuses it anyway).
 */
export function requestHashText(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  try {
    return JSON.stringify(body, sortedKeys);
  } catch {
    return undefined;
  }
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  // `fromEntries` defines properties, so a `__proto__` key stays a key.
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, (value as Record<string, unknown>)[key]]),
  );
}

type Operation = NonNullable<OpenAPIObject['paths'][string]['post']>;

const KEY_SCHEMA = { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x20-\\x7E]+$' } as const;

/**
 * Declares `Idempotency-Key` on every POST operation of the OpenAPI document: the header (one
 * shared parameter, worded for operations that remember keys and for those that only check them),
 * and on operations that remember keys (those of an API key or a workspace, with a JSON body) the
 * refusals it adds (400 FAILED_PRECONDITION, 409 ABORTED) and the `Idempotent-Replayed` header of a replay.
 */
export function declareIdempotencyKey(document: OpenAPIObject, retentionHours: number): void {
  const components = (document.components ??= {});
  components.parameters = {
    ...components.parameters,
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: KEY_SCHEMA,
      description:
        `Answer this request at most once: a repeat with the same key and body (in this API key's or workspace's scope, on this path) within ` +
        `${retentionHours} h gets the first answer again, with \`Idempotent-Replayed: true\`, without running the operation. ` +
        'A different body is 400 FAILED_PRECONDITION; a repeat while the first is still running is 409 ABORTED (Retry-After: 1). ' +
        'Successes and errors the request caused are kept; 429, ABORTED and 5xx answers are not (a retry runs again).',
    },
    IdempotencyKeyChecked: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: KEY_SCHEMA,
      description:
        'Accepted and checked (1–255 printable ASCII characters), but not remembered: this operation has no API key or workspace to keep ' +
        'answers for, or its body is a multipart upload, streamed rather than read before it runs.',
    },
  };
  components.headers = {
    ...components.headers,
    IdempotentReplayed: {
      description: 'Present (`true`) when the answer is one kept for a repeated Idempotency-Key, given again without running the operation.',
      schema: { type: 'string', enum: ['true'] },
    },
  };
  for (const item of Object.values(document.paths)) if (item.post) declareOn(item.post);
}

function declareOn(operation: Operation): void {
  const scoped = (operation.security ?? []).some((requirement) => 'apiKey' in requirement || 'workspaceId' in requirement);
  const multipart = operation.requestBody !== undefined && 'content' in operation.requestBody && 'multipart/form-data' in operation.requestBody.content;
  const remembered = scoped && !multipart;
  (operation.parameters ??= []).push({ $ref: `#/components/parameters/${remembered ? 'IdempotencyKey' : 'IdempotencyKeyChecked'}` });
  if (!remembered) return;
  const responses = operation.responses;
  type Media = { schema?: unknown; examples?: Record<string, unknown> };
  type Response = { description: string; content?: Record<string, Media> };
  const envelopeSchema = (responses['400'] as Response).content?.['application/json']?.schema;
  // The status's description and an example of the refusal, beside the examples it already shows.
  const add = (status: string, code: string, description: string, message: string) => {
    // Named apart from the status's own examples of the same code.
    const example = { [`Idempotency-Key: ${code}`]: { summary: message, value: { error: { status: code, message } } } };
    const existing = responses[status] as Response | undefined;
    if (!existing) {
      responses[status] = { description, content: { 'application/json': { schema: envelopeSchema, examples: example } } } as Operation['responses'][string];
      return;
    }
    const media = existing.content?.['application/json'] ?? { schema: envelopeSchema };
    responses[status] = {
      ...existing,
      description: `${existing.description}; ${description}`,
      content: { ...existing.content, 'application/json': { ...media, examples: { ...media.examples, ...example } } },
    } as Operation['responses'][string];
  };
  add('409', 'ABORTED', 'ABORTED: a request with this Idempotency-Key is still being answered; retry shortly', IDEMPOTENCY_KEY_IN_USE_MESSAGE);
  add('400', 'FAILED_PRECONDITION', 'FAILED_PRECONDITION: this Idempotency-Key was used with another body on this operation', IDEMPOTENCY_KEY_REUSED_MESSAGE);
  const success = responses['200'] as { headers?: Record<string, unknown> };
  success.headers = { ...success.headers, 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } };
  operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}
