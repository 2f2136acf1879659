import type { OpenAPIObject } from '@nestjs/swagger';
import { Ajv, type ValidateFunction } from 'ajv';

type Json = Record<string, unknown>;

/** RFC 3339 date-time, as `Date.prototype.toISOString` writes it and PostgreSQL may. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks answers against the OpenAPI document the app serves: an operation's answer must have a
 * status the document declares for it, and a body that matches that status's schema. Schemas are
 * read as closed (an object listing `properties` allows no others unless it says so), so a field
 * the service sends but the document does not describe fails too. `startApp` runs this on every
 * answer of every test.
 */
export class OpenApiConformance {
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly ajv = new Ajv({ strict: false, allErrors: false, formats: { 'date-time': ISO_DATE_TIME, email: /@/, uri: /^[a-z][a-z0-9+.-]*:/i } });

  constructor(private readonly document: OpenAPIObject) {
    this.ajv.addSchema({ components: { schemas: closed(document.components?.schemas ?? {}) } }, 'document');
  }

  /** What is wrong with this answer, or undefined when the document describes it. */
  problem(method: string, path: string, status: number, body: unknown): string | undefined {
    const operation = (
      this.document.paths[path] as Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Json }> }> }> | undefined
    )?.[method.toLowerCase()];
    // Unknown operations answer 404 with the error envelope; nothing to compare with.
    if (!operation) return undefined;
    const responses = operation.responses ?? {};
    const declared = responses[String(status)];
    if (!declared) return `${method} ${path} answered ${status}, which its OpenAPI responses (${Object.keys(responses).join(', ')}) do not declare`;
    const schema = declared.content?.['application/json']?.schema;
    if (!schema) return `${method} ${path} ${status} has no schema in the OpenAPI document`;
    const key = `${method} ${path} ${status}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(closed(schema) as Json);
      this.validators.set(key, validate);
    }
    if (validate(body)) return undefined;
    const error = validate.errors?.[0];
    return `${key}: the body does not match the OpenAPI document at ${error?.instancePath || '/'}: ${error?.message ?? ''} ${JSON.stringify(error?.params ?? {})}`;
  }
}

/** A copy where objects with `properties` and no `additionalProperties` allow no others, and refs point into 'document'. */
function closed<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(closed) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Json = {};
  for (const [name, value] of Object.entries(schema as Json)) {
    copy[name] =
      name === '$ref' && typeof value === 'string'
        ? `document${value}`
        : name === 'properties' || name === 'schemas'
          ? mapValues(value as Json, closed)
          : closed(value);
  }
  if (copy.properties && copy.additionalProperties === undefined && !copy.allOf) copy.additionalProperties = false;
  return copy as T;
}

function mapValues(object: Json, transform: (value: unknown) => unknown): Json {
  return Object.fromEntries(Object.entries(object).map(([name, value]) => [name, transform(value)]));
}
