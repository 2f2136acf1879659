import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { startApp, type TestApp } from './helpers/app.js';
import { SmtpReceiver } from './helpers/smtp-receiver.js';
import { createKey, type TestKey } from './factories/workspace.js';
import { HTTP_STATUS_BY_CODE, type ErrorCode } from '../src/common/errors.js';
import { INTERNAL_MESSAGE, UNAVAILABLE_MESSAGE } from '../src/common/filters/api-exception.filter.js';
import { LIMIT_MESSAGE } from '../src/common/rate-limit/rate-limit.guard.js';

type Json = Record<string, any>;

interface ErrorExample {
  status: ErrorCode;
  message: string;
}

interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: Json; example?: Json }> };
  responses: Record<
    string,
    {
      links?: Record<string, { operationId: string; requestBody: Json }>;
      content?: Record<string, { schema: Json; examples?: Record<string, { value: { error: ErrorExample } }> }>;
    }
  >;
}

/**
 * Operations whose `token` is the one of a login link's mail: no example can know it, so the run
 * asks for a link (the document's own `send-login-link` example) and reads the mail, as an owner
 * would.
 */
const MAILED_TOKEN = new Set(['/v2/workspace/login/verify', '/v2/console/session/create']);

/** A multipart file the run attaches where a request takes one (`format: binary`): no example can hold a file. */
const FILE = { name: 'launch-notes.txt', type: 'text/plain', text: 'Launch checklist: QA sign-off, release notes, announcement.' };

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

describe("the OpenAPI document's request examples", () => {
  let app: TestApp;
  let smtp: SmtpReceiver;
  let key: TestKey;
  let document: { paths: Record<string, Partial<Record<'get' | 'post', Operation>>>; components: Json };

  before(async () => {
    smtp = await new SmtpReceiver().start();
    app = await startApp({ SMTP_URL: smtp.url });
    key = await createKey(app);
    document = JSON.parse((await app.get('/docs/openapi.json')).text);
  });
  after(async () => {
    await app.close();
    await smtp.stop();
  });

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation: operation })));

  it('gives every operation with a body a whole request example its schema admits, with no placeholder values', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema({ components: document.components }, 'document');
    const problems: string[] = [];
    for (const { path, operation } of operations()) {
      const content = operation.requestBody?.content;
      if (!content) continue;
      const json = content['application/json'];
      if (!json) {
        // Multipart: each field but the file carries its example.
        const schema = content['multipart/form-data']!.schema;
        for (const [field, property] of Object.entries(schema.properties as Record<string, Json>))
          if (property.format !== 'binary' && property.example === undefined) problems.push(`${path}: multipart field ${field} has no example`);
        continue;
      }
      if (json.example === undefined) {
        problems.push(`${path}: no example`);
        continue;
      }
      const text = JSON.stringify(json.example);
      for (const placeholder of ['"string"', 'additionalProp', '"pageToken"'])
        if (text.includes(placeholder)) problems.push(`${path}: ${placeholder} in ${text}`);
      const validate = ajv.compile(JSON.parse(JSON.stringify(json.schema).replace(/"\$ref":"#/g, '"$ref":"document#')));
      if (!validate(json.example)) problems.push(`${path}: the example does not match the request schema: ${ajv.errorsText(validate.errors)}`);
    }
    assert.deepEqual(problems, []);
  });

  it('shows, for each error status of each operation, examples of the codes that status carries, worded as the service answers', async () => {
    const ajv = new Ajv({ strict: false });
    ajv.addSchema({ components: document.components }, 'document');
    const envelope = ajv.compile({ $ref: 'document#/components/schemas/ErrorEnvelope' });
    const problems: string[] = [];
    const examplesOf = (path: string, status: number) =>
      Object.values(document.paths[path]!.post!.responses[String(status)]?.content?.['application/json']?.examples ?? {}).map((example) => example.value.error);
    for (const { path, method, operation } of operations())
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status === '200' || method === 'get') continue;
        const examples = Object.values(response.content?.['application/json']?.examples ?? {});
        if (!examples.length) problems.push(`${path} ${status}: no example`);
        for (const { value } of examples) {
          if (!envelope(value)) problems.push(`${path} ${status}: ${JSON.stringify(value)} is no error envelope`);
          // 413 is the contract's one status of its own: INVALID_ARGUMENT for a body over the limit.
          const carried = status === '413' ? 400 : Number(status);
          if (HTTP_STATUS_BY_CODE[value.error.status] !== carried) problems.push(`${path} ${status}: example of ${value.error.status}`);
        }
      }
    assert.deepEqual(problems, []);

    // The common errors' wording is the service's: errors made to happen here, and the constants of the ones that cannot be.
    const answered = async (path: string, body: unknown, headers: Record<string, string>, status: number) => {
      const response = await app.post(path, body, headers);
      assert.equal(response.status, status, JSON.stringify(response.body));
      return response.body.error as ErrorExample;
    };
    const wrongKey = { ...key.headers, 'x-svc-auth-token': 'not-the-token' };
    const wrongWorkspace = { ...key.workspaceHeaders, 'x-svc-workspace-auth-token': 'not-the-token' };
    const has = (path: string, status: number, error: ErrorExample) =>
      assert.ok(
        examplesOf(path, status).some((example) => example.status === error.status && example.message === error.message),
        `${path} ${status} shows no example of ${JSON.stringify(error)}: ${JSON.stringify(examplesOf(path, status))}`,
      );
    has('/v2/organizations/get', 400, await answered('/v2/organizations/get', { organizationIds: [] }, key.headers, 400));
    has('/v2/organizations/get', 403, await answered('/v2/organizations/get', { data: {} }, wrongKey, 403));
    has('/v2/workspace/apikeys/get', 403, await answered('/v2/workspace/apikeys/get', { data: {} }, wrongWorkspace, 403));
    has('/v2/workspace/get', 401, await answered('/v2/workspace/get', { data: {} }, wrongWorkspace, 401));
    has('/v2/workspace/get', 404, await answered('/v2/workspace/get', { data: {} }, { ...wrongWorkspace, 'x-svc-workspace-id': 'no-such-workspace' }, 404));
    has('/v2/organizations/get', 401, await answered('/v2/console/session/get', { data: {} }, {}, 401));
    has('/v2/organizations/get', 413, await answered('/v2/organizations/get', { data: { pad: 'x'.repeat(app.config.bodyLimitBytes) } }, key.headers, 413));
    has('/v2/workspace/email/status', 404, await answered('/v2/workspace/email/status', { data: { ownerEmail: 'nobody@acme.example' } }, {}, 404));
    has(
      '/v2/crdt/state/get',
      404,
      await answered('/v2/crdt/state/get', { data: { organizationId: 'org-x', documentId: 'doc-x', editorId: 'none' } }, key.headers, 404),
    );
    has('/v2/organizations/get', 429, { status: 'RESOURCE_EXHAUSTED', message: LIMIT_MESSAGE });
    assert.ok(examplesOf('/v2/organizations/get', 500).some((example) => example.message === INTERNAL_MESSAGE));
    assert.ok(examplesOf('/v2/organizations/get', 503).some((example) => example.message === UNAVAILABLE_MESSAGE));
  });

  it('run in document order on a fresh API key, every example succeeds', async () => {
    const schemes = document.components.securitySchemes as Record<string, { name: string }>;
    const credentials: Record<string, string> = {
      [schemes.apiKey!.name]: key.apiKey,
      [schemes.authToken!.name]: key.authToken,
      [schemes.workspaceId!.name]: key.workspaceId,
      [schemes.workspaceAuthToken!.name]: key.workspaceToken,
    };
    let session: { cookie: string; csrf: string } | undefined;
    /** Values links give later examples, by operationId: where in the body, and what. */
    const linked = new Map<string, { at: string[]; value: unknown }[]>();
    /** The operations whose answers supply values to each operation's example. */
    const sources = new Map<string, string[]>();
    for (const { operation } of operations())
      for (const link of Object.values(operation.responses['200']?.links ?? {}))
        sources.set(link.operationId, [...(sources.get(link.operationId) ?? []), operation.operationId]);
    const ran: string[] = [];

    async function mailedToken(): Promise<string> {
      const send = document.paths['/v2/workspace/email/send-login-link']!.post!.requestBody!.content['application/json']!.example!;
      const before = smtp.mails.length;
      assert.equal((await app.post('/v2/workspace/email/send-login-link', send)).status, 200);
      const mail = await smtp.waitFor(send.data.email, 5000, before);
      return new URL(/http:\/\/\S+/.exec(mail.text)![0]).searchParams.get('token')!;
    }

    function headersFor(operation: Operation): Record<string, string> {
      const headers: Record<string, string> = {};
      for (const requirement of operation.security ?? [])
        for (const scheme of Object.keys(requirement)) {
          if (scheme === 'consoleSession') {
            assert.ok(session, `${operation.operationId} needs a console session, which no earlier example started`);
            Object.assign(headers, { cookie: session.cookie, 'x-console-csrf': session.csrf });
          } else headers[schemes[scheme]!.name] = credentials[schemes[scheme]!.name]!;
        }
      return headers;
    }

    for (const { path, method, operation } of operations()) {
      const label = `${method.toUpperCase()} ${path}`;
      if (method === 'get') {
        const response = await app.get(path);
        assert.equal(response.status, 200, `${label}: ${response.text}`);
        ran.push(operation.operationId);
        continue;
      }
      const headers = headersFor(operation);
      const content = operation.requestBody!.content;
      let response: { status: number; body: Json; headers: Record<string, unknown> };
      if (content['application/json']) {
        const body = structuredClone(content['application/json'].example!);
        for (const source of sources.get(operation.operationId) ?? [])
          assert.ok(ran.includes(source), `${label}: its example takes values from ${source}, listed after it`);
        for (const { at, value } of linked.get(operation.operationId) ?? []) {
          const parent = at.slice(0, -1).reduce((object: Json, step) => object[step], body);
          parent[at.at(-1)!] = value;
        }
        if (MAILED_TOKEN.has(path)) body.data.token = await mailedToken();
        response = await app.post(path, body, headers);
      } else {
        const form = new FormData();
        for (const [field, property] of Object.entries(content['multipart/form-data']!.schema.properties as Record<string, Json>))
          if (property.format === 'binary') form.append(field, new Blob([FILE.text], { type: FILE.type }), FILE.name);
          else form.append(field, String(property.example));
        const answer = await fetch(app.url + path, { method: 'POST', headers, body: form });
        response = { status: answer.status, body: (await answer.json()) as Json, headers: {} };
      }
      assert.equal(response.status, 200, `${label} answered ${response.status}: ${JSON.stringify(response.body)}`);
      assert.ok(response.body.result, `${label}: ${JSON.stringify(response.body)}`);
      // Every answer but memory/suggest's (only its fields) carries the success status.
      if ('status' in response.body.result) assert.equal(response.body.result.status, 'success', `${label}: ${JSON.stringify(response.body)}`);
      assert.deepEqual(failures(response.body.result), [], `${label} succeeded only in part`);
      ran.push(operation.operationId);
      for (const link of Object.values(operation.responses['200']?.links ?? {}))
        linked.set(link.operationId, [...(linked.get(link.operationId) ?? []), ...linkedValues(link.requestBody, response.body)]);
      if (path === '/v2/console/session/create') {
        const cookie = String(response.headers['set-cookie']).split(';')[0]!;
        session = { cookie, csrf: response.body.result.data.csrfToken };
      }
    }
    assert.equal(ran.length, operations().length);
  });
});
