import type { OpenAPIObject } from '@nestjs/swagger';
import { declaredOperation, type RequestExample } from './decorators/operation.decorator.js';

type Json = Record<string, unknown>;

interface MediaType {
  schema?: Json;
  example?: unknown;
}

interface OperationObject {
  tags?: string[];
  operationId?: string;
  requestBody?: { content?: Record<string, MediaType> } & Json;
  responses?: Record<string, Json & { links?: Record<string, Json> }>;
}

type PathItem = Partial<Record<'get' | 'post', OperationObject>>;

/** The operationId of a path: generated clients name their methods by it (`v1_organizations_add` for an alias too). */
export function operationIdOf(path: string): string {
  return path === '/health' ? 'health' : path.replace(/^\//, '').replace(/\//g, '_');
}

/** The example `data` of `path` (a main path or an alias), as its operation declares it. */
export function requestExampleOf(path: string): RequestExample | undefined {
  const declared = declaredOperation(path);
  if (!declared) return undefined;
  return (path === declared.path ? undefined : declared.options.aliasExamples?.[path]) ?? declared.options.example;
}

/**
 * The document with what "Try it out" needs to run top to bottom (see `OperationOptions.example`):
 * operations listed tag by tag as Swagger UI shows them (then each `listedAfter` applied), each
 * JSON request with its example, and links on the answers that hold a value a later example needs
 * (`exampleFrom`).
 */
export function withRequestExamples(document: OpenAPIObject): OpenAPIObject {
  const paths = document.paths as Record<string, PathItem>;
  for (const [path, item] of Object.entries(paths)) {
    const operation = item.post;
    const media = operation?.requestBody?.content?.['application/json'];
    if (!operation || !media) continue;
    const example = requestExampleOf(path) ?? (isEmptyRequest(media.schema) ? {} : undefined);
    if (example === undefined) continue;
    // Alias paths may share the body object with their main path: each gets a copy of its own.
    operation.requestBody = {
      ...operation.requestBody,
      content: { ...operation.requestBody!.content, 'application/json': { ...media, example: { data: example } } },
    };
  }
  for (const path of Object.keys(paths)) addLinks(paths, path);
  document.paths = Object.fromEntries(listingOrder(paths).map((path) => [path, document.paths[path]!]));
  return document;
}

function isEmptyRequest(schema: Json | undefined): boolean {
  const data = (schema?.properties as Record<string, Json> | undefined)?.data;
  return typeof data?.$ref === 'string' && data.$ref.endsWith('/EmptyRequest');
}

/**
 * For each field of `path`'s example that an earlier answer supplies, a link on that answer: its
 * `requestBody` is the example with the field replaced by a runtime expression
 * (`{$response.body#/result/data/id}`), as OpenAPI embeds them.
 */
function addLinks(paths: Record<string, PathItem>, path: string): void {
  const declared = declaredOperation(path);
  const from = declared?.options.exampleFrom;
  if (!from) return;
  const example = requestExampleOf(path);
  if (!example) throw new Error(`${path} says where fields of its example come from, but has no example`);
  const bySource = new Map<string, [string, string][]>();
  for (const [pointer, { operation, answer }] of Object.entries(from)) {
    if (readPointer(example, pointer) === undefined) throw new Error(`${path}: its example has no ${pointer}`);
    bySource.set(operation, [...(bySource.get(operation) ?? []), [pointer, answer]]);
  }
  for (const [source, fields] of bySource) {
    const answer = paths[source]?.post?.responses?.['200'];
    if (!answer) throw new Error(`${path}: the example takes a value from ${source}, which answers no 200`);
    const body = structuredClone({ data: example });
    for (const [pointer, answerPointer] of fields) writePointer(body, `/data${pointer}`, `{$response.body#${answerPointer}}`);
    const operationId = operationIdOf(path);
    const links = {
      ...answer.links,
      [operationId]: {
        operationId,
        requestBody: body,
        description: `${fields.map(([pointer]) => `\`data${pointer.replace(/\//g, '.')}\``).join(', ')} of \`${path}\`'s example.`,
      },
    };
    paths[source]!.post!.responses = { ...paths[source]!.post!.responses, 200: { ...answer, links } };
  }
}

/** Paths tag by tag (tags in order of first appearance), then each `listedAfter` moved into place. */
function listingOrder(paths: Record<string, PathItem>): string[] {
  const tagOf = (path: string) => (paths[path]!.post ?? paths[path]!.get)?.tags?.[0] ?? '';
  const declaredOrder = Object.keys(paths);
  const tags = [...new Set(declaredOrder.map(tagOf))];
  let ordered = tags.flatMap((tag) => declaredOrder.filter((path) => tagOf(path) === tag));
  const movedAfter = new Map<string, string>();
  for (const path of declaredOrder) {
    const declared = declaredOperation(path);
    const after = declared?.options.listedAfter;
    if (!after || declared.path !== path) continue;
    const moving = [path, ...(declared.options.aliases ?? [])].filter((p) => ordered.includes(p));
    ordered = ordered.filter((p) => !moving.includes(p));
    const anchor = [after, ...(declaredOperation(after)?.options.aliases ?? [])];
    let index = Math.max(...anchor.map((p) => ordered.indexOf(p)));
    if (index < 0) throw new Error(`${path} is to be listed after ${after}, which the document does not have`);
    while (index + 1 < ordered.length && movedAfter.get(ordered[index + 1]!) === after) index++;
    ordered.splice(index + 1, 0, ...moving);
    for (const p of moving) movedAfter.set(p, after);
  }
  return ordered;
}

/** The value at a JSON pointer (`/a/0/b`), or undefined. */
export function readPointer(value: unknown, pointer: string): unknown {
  let current = value;
  for (const step of pointerSteps(pointer)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Json)[step];
  }
  return current;
}

function writePointer(value: Json, pointer: string, replacement: unknown): void {
  const steps = pointerSteps(pointer);
  const parent = readPointer(
    value,
    steps
      .slice(0, -1)
      .map((s) => `/${s}`)
      .join(''),
  ) as Json;
  parent[steps.at(-1)!] = replacement;
}

function pointerSteps(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((step) => step.replace(/~1/g, '/').replace(/~0/g, '~'));
}
