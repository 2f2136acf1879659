import assert from 'node:assert/strict';
import type { TestApp } from './app.js';
import type { SmtpReceiver } from './smtp-receiver.js';

export type Json = Record<string, any>;

export interface ExampleOperation {
  operationId: string;
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: Json; example?: Json }> };
  responses: Record<
    string,
    {
      links?: Record<string, { operationId: string; requestBody: Json }>;
      content?: Record<string, { schema: Json; examples?: Record<string, { value: { error: { status: string; message: string } } }> }>;
    }
  >;
}

export interface ExampleDocument {
  paths: Record<string, Partial<Record<'get' | 'post', ExampleOperation>>>;
  components: Json;
}

/**
 * Operations whose `token` is the one of a login link's mail: no example can know it, so the run
 * asks for a link (the document's own `send-login-link` example) and reads the mail, as an owner
 * would.
 */
export const MAILED_TOKEN = new Set(['/v2/workspace/login/verify', '/v2/console/session/create']);

/** A login link's token, as its owner gets it: the document's own `send-login-link` example sent, the mail read. */
export async function mailedToken(app: TestApp, smtp: SmtpReceiver, document: ExampleDocument): Promise<string> {
  const send = document.paths['/v2/workspace/email/send-login-link']!.post!.requestBody!.content['application/json']!.example!;
  const before = smtp.mails.length;
  assert.equal((await app.post('/v2/workspace/email/send-login-link', send)).status, 200);
  const mail = await smtp.waitFor(send.data.email, 5000, before);
  return new URL(/http:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token')!;
}

/** A multipart file the run attaches where a request takes one (`format: binary`): no example can hold a file. */
/**
 * The master key of apps that run the document's examples. The examples name fixed owner
 * e-mails, so on PostgreSQL (one database for the run's files) a login link's verify answers
 * the workspaces every such file made: their secrets must open with this app's key, as those
 * of instances sharing a database do.
 */
export const EXAMPLES_MASTER_KEY = Buffer.alloc(32, 'examples').toString('base64');

export const EXAMPLE_FILE = { name: 'launch-notes.txt', type: 'text/plain', text: 'Launch checklist: QA sign-off, release notes, announcement.' };

/** One request of the run, as the document and the earlier answers make it. */
export interface ExampleRequest {
  path: string;
  method: 'get' | 'post';
  operation: ExampleOperation;
  /** The JSON body: the document's example with the values its links give it (and a mailed token). */
  json?: Json;
  /** A multipart body: each field's example, and `EXAMPLE_FILE` for the binary one. */
  multipart?: { fields: Record<string, string>; fileField?: string };
}

/**
 * How a run sends its requests: over HTTP from the test, or through Swagger UI's "Try it out"
 * in a browser. The transport holds the credentials the document's security schemes name and
 * applies them itself; it is told of the console session the run starts.
 */
export interface ExampleTransport {
  send(request: ExampleRequest): Promise<ExampleAnswer>;
  /** `console/session/create` answered: its answer (the CSRF token) and, over HTTP, its `set-cookie`. */
  sessionStarted(answer: ExampleAnswer): void | Promise<void>;
}

export interface ExampleAnswer {
  status: number;
  body: Json;
  /** The answer's `set-cookie`, where the transport can read it (a browser keeps it to itself). */
  setCookie?: string;
}

/** Embedded runtime expressions of links (`{$response.body#/result/data/id}`). */
const EXPRESSION = /^\{\$response\.body#(.*)\}$/;

function readPointer(value: unknown, pointer: string): unknown {
  let current = value;
  for (const step of pointer.split('/').slice(1)) current = (current as Json | undefined)?.[step.replace(/~1/g, '/').replace(/~0/g, '~')];
  return current;
}

/** Where `value` (a link's request body) holds runtime expressions: their paths and the values `answer` gives them. */
function linkedValues(value: unknown, answer: unknown, at: string[] = []): { at: string[]; value: unknown }[] {
  if (typeof value === 'string') {
    const expression = EXPRESSION.exec(value);
    if (!expression) return [];
    const resolved = readPointer(answer, expression[1]!);
    assert.notEqual(resolved, undefined, `the answer has nothing at ${expression[1]}`);
    return [{ at, value: resolved }];
  }
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => linkedValues(inner, answer, [...at, key]));
}

/** What in a success answer says an item failed or a requested record is missing: `success`/`added`/`deleted` false, `null` items, `notFound` ids. */
function failures(value: unknown, at = 'result'): string[] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => (item === null ? [`${at}[${i}] is null`] : failures(item, `${at}[${i}]`)));
  const problems: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    if (['success', 'added', 'deleted'].includes(key) && inner === false) problems.push(`${at}.${key} is false: ${JSON.stringify(value)}`);
    else if (key === 'notFound' && Array.isArray(inner) && inner.length) problems.push(`${at}.notFound: ${JSON.stringify(inner)}`);
    else problems.push(...failures(inner, `${at}.${key}`));
  }
  return problems;
}

/** Every operation of the document, in its order. */
export function documentOperations(document: ExampleDocument): { path: string; method: 'get' | 'post'; operation: ExampleOperation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method: method as 'get' | 'post', operation })),
  );
}

/**
 * Runs every operation's example in document order on a fresh key, as a reader of the document
 * would: each body as written, with what its links take from earlier answers (ids the service
 * made) and a login link's mailed token where one is asked for (`mailedToken`); each answer must
 * be a whole success. Answers the operationIds run, in order.
 */
export async function runExamplesInOrder(document: ExampleDocument, transport: ExampleTransport, mailedToken: () => Promise<string>): Promise<string[]> {
  /** Values links give later examples, by operationId: where in the body, and what. */
  const linked = new Map<string, { at: string[]; value: unknown }[]>();
  /** The operations whose answers supply values to each operation's example. */
  const sources = new Map<string, string[]>();
  const operations = documentOperations(document);
  for (const { operation } of operations)
    for (const link of Object.values(operation.responses['200']?.links ?? {}))
      sources.set(link.operationId, [...(sources.get(link.operationId) ?? []), operation.operationId]);
  const ran: string[] = [];
  for (const { path, method, operation } of operations) {
    const label = `${method.toUpperCase()} ${path}`;
    if (method === 'get') {
      const response = await transport.send({ path, method, operation });
      assert.equal(response.status, 200, `${label}: ${JSON.stringify(response.body)}`);
      ran.push(operation.operationId);
      continue;
    }
    const content = operation.requestBody!.content;
    const request: ExampleRequest = { path, method, operation };
    if (content['application/json']) {
      const body = structuredClone(content['application/json'].example!);
      for (const source of sources.get(operation.operationId) ?? [])
        assert.ok(ran.includes(source), `${label}: its example takes values from ${source}, listed after it`);
      for (const { at, value } of linked.get(operation.operationId) ?? []) {
        const parent = at.slice(0, -1).reduce((object: Json, step) => object[step], body);
        parent[at.at(-1)!] = value;
      }
      if (MAILED_TOKEN.has(path)) body.data.token = await mailedToken();
      request.json = body;
    } else {
      const fields: Record<string, string> = {};
      let fileField: string | undefined;
      for (const [field, property] of Object.entries(content['multipart/form-data']!.schema.properties as Record<string, Json>))
        if (property.format === 'binary') fileField = field;
        else fields[field] = String(property.example);
      request.multipart = { fields, ...(fileField ? { fileField } : {}) };
    }
    const response = await transport.send(request);
    assert.equal(response.status, 200, `${label} answered ${response.status}: ${JSON.stringify(response.body)}`);
    assert.ok(response.body.result, `${label}: ${JSON.stringify(response.body)}`);
    // Every answer but memory/suggest's (only its fields) carries the success status.
    if ('status' in response.body.result) assert.equal(response.body.result.status, 'success', `${label}: ${JSON.stringify(response.body)}`);
    assert.deepEqual(failures(response.body.result), [], `${label} succeeded only in part`);
    ran.push(operation.operationId);
    for (const link of Object.values(operation.responses['200']?.links ?? {}))
      linked.set(link.operationId, [...(linked.get(link.operationId) ?? []), ...linkedValues(link.requestBody, response.body)]);
    if (path === '/v2/console/session/create') await transport.sessionStarted(response);
  }
  assert.equal(ran.length, operations.length);
  return ran;
}
