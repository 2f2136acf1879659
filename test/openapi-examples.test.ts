import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { startApp, type TestApp } from './helpers/app.js';
import { SmtpReceiver } from './helpers/smtp-receiver.js';
import { createKey, type TestKey } from './factories/workspace.js';
import { HTTP_STATUS_BY_CODE, type ErrorCode } from '../src/common/errors.js';
import { INTERNAL_MESSAGE, UNAVAILABLE_MESSAGE } from '../src/common/filters/api-exception.filter.js';
import { LIMIT_MESSAGE } from '../src/common/rate-limit/rate-limit.guard.js';
import {
  documentOperations,
  EXAMPLE_FILE,
  EXAMPLES_MASTER_KEY,
  type ExampleDocument,
  type ExampleOperation,
  type ExampleTransport,
  type Json,
  mailedToken,
  runExamplesInOrder,
} from './helpers/openapi-example-run.js';

interface ErrorExample {
  status: ErrorCode;
  message: string;
}

describe("the OpenAPI document's request examples", () => {
  let app: TestApp;
  let smtp: SmtpReceiver;
  let key: TestKey;
  let document: ExampleDocument;

  before(async () => {
    smtp = await new SmtpReceiver().start();
    app = await startApp({ SMTP_URL: smtp.url, MASTER_KEY: EXAMPLES_MASTER_KEY });
    key = await createKey(app);
    document = JSON.parse((await app.get('/docs/openapi.json')).text);
  });
  after(async () => {
    await app.close();
    await smtp.stop();
  });

  const operations = () => documentOperations(document);

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
          if (HTTP_STATUS_BY_CODE[value.error.status as ErrorCode] !== carried) problems.push(`${path} ${status}: example of ${value.error.status}`);
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
      apiKey: key.apiKey,
      authToken: key.authToken,
      workspaceId: key.workspaceId,
      workspaceAuthToken: key.workspaceToken,
    };
    let cookie: string | undefined;
    const headersFor = (operation: ExampleOperation): Record<string, string> => {
      const headers: Record<string, string> = {};
      for (const requirement of operation.security ?? [])
        for (const scheme of Object.keys(requirement)) {
          if (scheme === 'consoleSession') {
            assert.ok(cookie, `${operation.operationId} needs a console session, which no earlier example started`);
            headers.cookie = cookie;
          } else headers[schemes[scheme]!.name] = credentials[scheme]!;
        }
      return headers;
    };
    const overHttp: ExampleTransport = {
      async send({ path, method, operation, json, multipart }) {
        if (method === 'get') {
          const response = await app.get(path);
          return { status: response.status, body: { text: response.text } };
        }
        const headers = headersFor(operation);
        if (json) {
          const response = await app.post(path, json, headers);
          return { status: response.status, body: response.body, setCookie: String(response.headers['set-cookie'] ?? '') };
        }
        const form = new FormData();
        for (const [field, value] of Object.entries(multipart!.fields)) form.append(field, value);
        if (multipart!.fileField) form.append(multipart!.fileField, new Blob([EXAMPLE_FILE.text], { type: EXAMPLE_FILE.type }), EXAMPLE_FILE.name);
        const answer = await fetch(app.url + path, { method: 'POST', headers, body: form });
        return { status: answer.status, body: (await answer.json()) as Json };
      },
      sessionStarted({ body, setCookie }) {
        cookie = setCookie!.split(';')[0]!;
        credentials.consoleCsrf = body.result.data.csrfToken;
      },
    };
    await runExamplesInOrder(document, overHttp, () => mailedToken(app, smtp, document));
  });
});
