import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { WorkspaceEntity } from '../src/workspace/entities/workspace.entity.js';
import { startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectError, expectSuccess, uniqueEmail, type TestKey } from './factories/workspace.js';

const MALFORMED = 'Request body must be a JSON object with a "data" object.';

describe('wire rules (contract part 1)', () => {
  let app: TestApp;
  let key: TestKey;

  before(async () => {
    app = await startApp({ BODY_LIMIT: '4kb' });
    key = await createKey(app);
  });
  after(() => app.close());

  describe('request parsing', () => {
    const raw = (body: string, headers: Record<string, string> = {}) =>
      request(app.url)
        .post('/v2/workspace/domains/get')
        .set({ ...key.headers, 'content-type': 'application/json', ...headers })
        .send(body);

    it("answers malformed JSON with INVALID_ARGUMENT, the contract's message, and an issue saying it did not parse", async () => {
      const answer = await raw('{"data": {');
      expectError(answer, 400, 'INVALID_ARGUMENT', MALFORMED);
      assert.match(
        (answer.body as { error: { details: { issues: { path: string; message: string }[] } } }).error.details.issues[0]!.message,
        /^Request body is not valid JSON: .+/,
      );
    });

    it('requires a body object with a data object', async () => {
      for (const body of ['{}', '[]', '"text"', '42', 'null', '{"data": null}', '{"data": []}', '{"data": "x"}', '{"data": 1}']) {
        expectError(await raw(body), 400, 'INVALID_ARGUMENT', MALFORMED);
      }
    });

    it('answers an empty body with INVALID_ARGUMENT', async () => {
      expectError(await request(app.url).post('/v2/workspace/domains/get').set(key.headers), 400, 'INVALID_ARGUMENT', MALFORMED);
    });

    it('parses JSON whatever the content type says', async () => {
      expectSuccess(await raw('{"data": {}}', { 'content-type': 'text/plain' }), 'Allowed domains retrieved successfully.');
    });

    it('rejects unknown fields of data, naming them', async () => {
      const response = await agentFor(app, key)('/v2/workspace/domains/get', { foo: 1 });
      expectError(response, 400, 'INVALID_ARGUMENT', 'Unknown field: data.foo');
      assert.deepEqual(response.body.error.details.issues, [{ path: 'data.foo', message: 'Unknown field: data.foo' }]);
    });

    it('names the field path of a wrong type', async () => {
      expectError(await agentFor(app, key)('/v2/workspace/domains/add', { domains: 'example.com' }), 400, 'INVALID_ARGUMENT', 'data.domains must be an array');
      expectError(
        await agentFor(app, key)('/v2/workspace/domains/add', { domains: ['a.com', 7] }),
        400,
        'INVALID_ARGUMENT',
        'data.domains[1] must be a string',
      );
    });

    it('refuses a huge array with INVALID_ARGUMENT', async () => {
      const domains = Array.from({ length: 101 }, (_, i) => `d${i}.io`);
      expectError(await agentFor(app, key)('/v2/workspace/domains/add', { domains }), 400, 'INVALID_ARGUMENT', 'data.domains must contain at most 100 items');
    });

    it('answers an oversized body with INVALID_ARGUMENT and HTTP 413', async () => {
      const response = await agentFor(app, key)('/v2/workspace/domains/add', { domains: ['x'.repeat(5000)] });
      expectError(response, 413, 'INVALID_ARGUMENT', /limit of 4096 bytes/);
    });

    it('checks credentials before the body: a bad body without credentials learns nothing', async () => {
      const response = await request(app.url).post('/v2/workspace/domains/get').set('content-type', 'application/json').send('{oops');
      expectError(response, 400, 'INVALID_ARGUMENT', 'API key not found in headers.');
      const oversized = await app.post('/v2/workspace/domains/add', { data: { domains: ['x'.repeat(5000)] } }, { ...key.headers, 'x-svc-auth-token': 'wrong' });
      expectError(oversized, 403, 'PERMISSION_DENIED', 'Invalid API key or auth token.');
    });
  });

  describe('routing', () => {
    it('answers an unknown operation with 404 NOT_FOUND', async () => {
      expectError(await app.post('/v2/nothing/here', { data: {} }, key.headers), 404, 'NOT_FOUND', 'Operation not found.');
    });

    it('answers another method on an operation path with 404 NOT_FOUND', async () => {
      for (const method of ['get', 'put', 'delete', 'patch'] as const) {
        expectError(await request(app.url)[method]('/v2/workspace/domains/get'), 404, 'NOT_FOUND', 'Operation not found.');
      }
    });
  });

  describe('API-key credentials', () => {
    it('needs both headers', async () => {
      expectError(
        await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-svc-auth-token': key.authToken }),
        400,
        'INVALID_ARGUMENT',
        'API key not found in headers.',
      );
      expectError(
        await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-svc-api-key': key.apiKey }),
        400,
        'INVALID_ARGUMENT',
        'Auth token not found in headers.',
      );
    });

    it('refuses an unknown key, a wrong token and another key’s token', async () => {
      const other = await createKey(app);
      for (const headers of [
        { 'x-svc-api-key': 'nope', 'x-svc-auth-token': key.authToken },
        { 'x-svc-api-key': key.apiKey, 'x-svc-auth-token': 'wrong' },
        { 'x-svc-api-key': key.apiKey, 'x-svc-auth-token': other.authToken },
      ]) {
        expectError(await app.post('/v2/workspace/domains/get', { data: {} }, headers), 403, 'PERMISSION_DENIED', 'Invalid API key or auth token.');
      }
    });
  });

  describe('workspace credentials', () => {
    it('needs both headers', async () => {
      expectError(
        await app.post('/v2/workspace/get', { data: {} }, { 'x-svc-workspace-auth-token': key.workspaceToken }),
        400,
        'INVALID_ARGUMENT',
        'Workspace ID not found in headers.',
      );
      expectError(
        await app.post('/v2/workspace/get', { data: {} }, { 'x-svc-workspace-id': key.workspaceId }),
        400,
        'INVALID_ARGUMENT',
        'Auth Token not found in headers.',
      );
    });

    it('get workspace distinguishes an unknown workspace from a wrong token', async () => {
      expectError(
        await app.post('/v2/workspace/get', { data: {} }, { 'x-svc-workspace-id': 'unknown', 'x-svc-workspace-auth-token': key.workspaceToken }),
        404,
        'NOT_FOUND',
        'Workspace not found.',
      );
      expectError(
        await app.post('/v2/workspace/get', { data: {} }, { 'x-svc-workspace-id': key.workspaceId, 'x-svc-workspace-auth-token': 'f'.repeat(32) }),
        401,
        'UNAUTHENTICATED',
        'Invalid auth token for workspace.',
      );
    });

    it('other workspace operations answer PERMISSION_DENIED for either', async () => {
      for (const headers of [
        { 'x-svc-workspace-id': 'unknown', 'x-svc-workspace-auth-token': key.workspaceToken },
        { 'x-svc-workspace-id': key.workspaceId, 'x-svc-workspace-auth-token': 'f'.repeat(32) },
      ]) {
        expectError(
          await app.post('/v2/workspace/apikey/create', { data: { ownerEmail: 'a@example.com', type: 'testing' } }, headers),
          403,
          'PERMISSION_DENIED',
          'Invalid workspace credentials.',
        );
      }
    });

    it('accepts x-svc-auth-token as the workspace token’s fallback name', async () => {
      expectSuccess(await app.post('/v2/workspace/get', { data: {} }, { 'x-svc-workspace-id': key.workspaceId, 'x-svc-auth-token': key.workspaceToken }));
    });
  });

  describe('request ids', () => {
    it('echoes a sent x-request-id', async () => {
      const response = await app.post('/v2/workspace/domains/get', { data: {} }, { ...key.headers, 'x-request-id': 'req-123.abc' });
      assert.equal(response.headers['x-request-id'], 'req-123.abc');
    });

    it('generates one otherwise, on errors too', async () => {
      const ok = await app.post('/v2/workspace/domains/get', { data: {} }, key.headers);
      const failed = await app.post('/v2/none', { data: {} });
      assert.match(ok.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
      assert.match(failed.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
      assert.notEqual(ok.headers['x-request-id'], failed.headers['x-request-id']);
    });
  });

  describe('unexpected failures', () => {
    it('answer INTERNAL with the request id and no stack', async () => {
      const broken = await createKey(app);
      // A secret that no longer decrypts (e.g. the wrong MASTER_KEY) is a genuine unexpected failure.
      await app.dataSource.getRepository(WorkspaceEntity).update({ id: broken.workspaceId }, { authTokenEnc: 'v1.corrupt.value.here' });
      const response = await app.post('/v2/workspace/get', { data: {} }, { ...broken.workspaceHeaders, 'x-request-id': 'trace-me' });
      expectError(response, 500, 'INTERNAL', 'An internal error occurred.');
      assert.deepEqual(response.body.error.details, { requestId: 'trace-me' });
      assert.doesNotMatch(JSON.stringify(response.body), /at |\.ts|\.js|decrypt/);
    });
  });

  describe('outside the envelope', () => {
    it('GET /health reports the database', async () => {
      const response = await request(app.url).get('/health');
      assert.equal(response.status, 200);
      assert.equal(response.body.status, 'ok');
      assert.equal(response.body.info.database.status, 'up');
    });

    it('serves the OpenAPI document listing the operations', async () => {
      const response = await request(app.url).get('/docs/openapi.json');
      assert.equal(response.status, 200);
      for (const path of ['/v2/workspace/create', '/v2/workspace/apikey/create', '/v2/workspace/domains/add', '/v2/workspace/login/verify']) {
        assert.ok(response.body.paths[path]?.post, `${path} missing from OpenAPI`);
      }
      const ui = await request(app.url).get('/docs/');
      assert.equal(ui.status, 200);
      assert.match(ui.text, /swagger/i);
    });

    it('serves every file the /docs page loads, with its type (the browser test clicks through the page on one adapter: what it loads is served here on each)', async () => {
      const types: Record<string, RegExp> = { css: /^text\/css/, js: /^(application|text)\/javascript/, png: /^image\/png/ };
      for (const page of ['/docs', '/docs/']) {
        const html = await fetch(`${app.url}${page}`);
        assert.equal(html.status, 200, page);
        assert.match(String(html.headers.get('content-type')), /^text\/html/, page);
        const assets = [...(await html.text()).matchAll(/(?:href|src)="([^"]+)"/g)].map(([, path]) => new URL(path!, `${app.url}${page}`));
        assert.deepEqual(
          assets.map((asset) => asset.pathname.split('/').pop()).sort(),
          ['favicon-16x16.png', 'favicon-32x32.png', 'swagger-ui-bundle.js', 'swagger-ui-init.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css'],
          page,
        );
        for (const asset of assets) {
          const response = await fetch(asset);
          const body = Buffer.from(await response.arrayBuffer());
          assert.equal(response.status, 200, asset.pathname);
          assert.match(String(response.headers.get('content-type')), types[asset.pathname.split('.').pop()!]!, asset.pathname);
          assert.ok(body.length > 0, asset.pathname);
          // The page's own settings carry the document, with this service's title.
          if (asset.pathname.endsWith('swagger-ui-init.js')) assert.match(body.toString(), /"title": "Collaboration backend"/);
        }
      }
    });
  });
});

describe('openapi.json', () => {
  it('declares both credential header pairs, and each operation the pair it needs (public ones none)', async () => {
    const app = await startApp();
    try {
      const document = (await request(app.url).get('/docs/openapi.json')).body as {
        components: { securitySchemes: Record<string, { in: string; name: string }> };
        paths: Record<string, { post?: { security?: Record<string, string[]>[] } }>;
      };
      assert.deepEqual(Object.fromEntries(Object.entries(document.components.securitySchemes).map(([name, scheme]) => [name, `${scheme.in}:${scheme.name}`])), {
        apiKey: 'header:x-svc-api-key',
        authToken: 'header:x-svc-auth-token',
        workspaceId: 'header:x-svc-workspace-id',
        workspaceAuthToken: 'header:x-svc-workspace-auth-token',
        consoleSession: 'cookie:console_session',
        consoleCsrf: 'header:x-console-csrf',
      });
      const security = (path: string) => document.paths[path]?.post?.security;
      assert.deepEqual(security('/v2/organizations/get'), [{ apiKey: [], authToken: [] }]);
      assert.deepEqual(security('/v2/workspace/get'), [{ workspaceId: [], workspaceAuthToken: [] }]);
      assert.deepEqual(security('/v2/console/session/get'), [{ consoleSession: [] }]);
      assert.deepEqual(security('/v2/console/session/delete'), [{ consoleSession: [], consoleCsrf: [] }]);
      // Public operations say "no credentials" with an empty list.
      const open = Object.entries(document.paths)
        .filter(([, item]) => item.post?.security?.length === 0)
        .map(([path]) => path);
      assert.deepEqual(open.sort(), [
        '/v1/auth/token/get',
        '/v2/console/session/create',
        '/v2/workspace/create',
        '/v2/workspace/email/send-login-link',
        '/v2/workspace/email/status',
        '/v2/workspace/login/verify',
      ]);
      const undeclared = Object.entries(document.paths).filter(([, item]) => item.post && !item.post.security);
      assert.deepEqual(
        undeclared.map(([path]) => path),
        [],
      );
    } finally {
      await app.close();
    }
  });

  it('the committed document is the one the service serves, fact for fact (regenerate: npm run openapi)', async () => {
    const { readFileSync } = await import('node:fs');
    const committed = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, unknown> };
    const app = await startApp();
    try {
      const served = (await request(app.url).get('/docs/openapi.json')).body as { paths: Record<string, unknown> };
      assert.deepEqual(Object.keys(committed.paths).sort(), Object.keys(served.paths).sort());
      // Every schema, rule and example the same, whichever decorator states it (key order aside).
      assert.deepStrictEqual(served, committed);
    } finally {
      await app.close();
    }
  });
});

describe('configurable header product part (HEADER_PRODUCT)', () => {
  it('reads x-<product>-… headers and ignores the default names', async () => {
    const app = await startApp({ HEADER_PRODUCT: 'acme' });
    try {
      const created = await app.post('/v2/workspace/create', { data: { ownerEmail: uniqueEmail('acme') } });
      const workspace = expectSuccess(created).data;
      const apiKey = Object.keys(workspace.apiKeyList)[0]!;
      const tokens = await app.post(
        '/v2/workspace/authtokens/get',
        { data: { apiKey } },
        { 'x-acme-workspace-id': workspace.id, 'x-acme-workspace-auth-token': workspace.authToken },
      );
      const authToken = expectSuccess(tokens).data.authTokens[0].token;
      expectSuccess(await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-acme-api-key': apiKey, 'x-acme-auth-token': authToken }));
      expectError(
        await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-svc-api-key': apiKey, 'x-svc-auth-token': authToken }),
        400,
        'INVALID_ARGUMENT',
        'API key not found in headers.',
      );
    } finally {
      await app.close();
    }
  });
});
