import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiKeyEntity } from '../src/workspace/entities/api-key.entity.js';
import { LoginTokenEntity } from '../src/workspace/entities/login-token.entity.js';
import { WorkspaceService } from '../src/workspace/workspace.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { SmtpReceiver } from './helpers/smtp-receiver.js';
import { agentFor, createKey, expectError, expectSuccess, uniqueEmail, type TestKey } from './factories/workspace.js';

describe('workspaces, API keys and credentials (contract part 2)', () => {
  let app: TestApp;
  let smtp: SmtpReceiver;

  before(async () => {
    smtp = await new SmtpReceiver().start();
    app = await startApp({ SMTP_URL: smtp.url, RATE_LIMIT_LOGIN_LINK_EMAIL: '3', CONSOLE_DOMAIN: 'console.example.com' });
  });
  after(async () => {
    await app.close();
    await smtp.stop();
  });

  const setPlan = (key: TestKey, plan: 'free' | 'paid', selfServe: boolean) => app.app.get(WorkspaceService).setPlan(key.workspaceId, plan, selfServe);

  describe('workspace create and get', () => {
    it('creates a workspace with a testing key, in the Workspace shape', async () => {
      const email = `jane.doe+${Date.now()}@example.com`;
      const result = expectSuccess(await app.post('/v2/workspace/create', { data: { ownerEmail: email } }), 'Workspace created successfully');
      const workspace = result.data;
      assert.match(workspace.id, /^[0-9A-Za-z]{20}$/);
      assert.match(workspace.authToken, /^[0-9a-f]{32}$/);
      assert.equal(workspace.name, `${email} workspace`);
      assert.deepEqual(Object.keys(workspace.owner).sort(), ['avatar', 'email', 'id', 'name']);
      assert.equal(workspace.owner.email, email);
      assert.equal(workspace.owner.name, email);
      assert.equal(workspace.owner.avatar, '');
      const keys = Object.values(workspace.apiKeyList) as { id: string; apiKeyName: string; type: string }[];
      assert.equal(keys.length, 1);
      assert.match(keys[0]!.id, /^[0-9A-Za-z]{24}$/);
      assert.deepEqual(workspace.apiKeyList[keys[0]!.id], { apiKeyName: 'Jane.doe Test API Key', id: keys[0]!.id, type: 'testing' });
    });

    it('takes the optional names and avatar, and keeps the owner id per e-mail', async () => {
      const email = uniqueEmail();
      const first = expectSuccess(
        await app.post('/v2/workspace/create', { data: { ownerEmail: email, name: 'Ann', workspaceName: 'Docs', avatar: 'https://img.example.com/a.png' } }),
      ).data;
      assert.equal(first.name, 'Docs');
      assert.deepEqual({ ...first.owner, id: undefined }, { email, id: undefined, name: 'Ann', avatar: 'https://img.example.com/a.png' });
      const second = expectSuccess(await app.post('/v2/workspace/create', { data: { ownerEmail: email.toUpperCase() } })).data;
      assert.equal(second.owner.id, first.owner.id);
      assert.notEqual(second.id, first.id);
    });

    it('refuses bad and disposable e-mails and a sixth workspace per owner', async () => {
      expectError(
        await app.post('/v2/workspace/create', { data: { ownerEmail: 'not-an-email' } }),
        400,
        'INVALID_ARGUMENT',
        'data.ownerEmail must be a valid e-mail address',
      );
      expectError(await app.post('/v2/workspace/create', { data: {} }), 400, 'INVALID_ARGUMENT', 'data.ownerEmail must be a non-empty string');
      expectError(
        await app.post('/v2/workspace/create', { data: { ownerEmail: 'x@mailinator.com' } }),
        400,
        'INVALID_ARGUMENT',
        'This email domain is not supported.',
      );
      expectError(
        await app.post('/v2/workspace/create', { data: { ownerEmail: uniqueEmail(), avatar: 'javascript:alert(1)' } }),
        400,
        'INVALID_ARGUMENT',
        'data.avatar must be an http(s) URL',
      );
      const email = uniqueEmail();
      for (let i = 0; i < 5; i++) expectSuccess(await app.post('/v2/workspace/create', { data: { ownerEmail: email } }));
      expectError(await app.post('/v2/workspace/create', { data: { ownerEmail: email } }), 429, 'RESOURCE_EXHAUSTED');
    });

    it('get returns the workspace with every key', async () => {
      const key = await createKey(app);
      const created = expectSuccess(
        await app.post('/v2/workspace/apikey/create', { data: { ownerEmail: key.ownerEmail, type: 'testing', apiKeyName: 'Second' } }, key.workspaceHeaders),
      );
      const workspace = expectSuccess(await app.post('/v2/workspace/get', { data: {} }, key.workspaceHeaders), 'Workspace retrieved successfully').data;
      assert.equal(workspace.id, key.workspaceId);
      assert.equal(workspace.authToken, key.workspaceToken);
      assert.deepEqual(Object.keys(workspace.apiKeyList).sort(), [key.apiKey, created.data.apiKey].sort());
      assert.equal(workspace.apiKeyList[created.data.apiKey].apiKeyName, 'Second');
    });
  });

  describe('API key create', () => {
    it('creates a key whose token works when createAuthToken is set', async () => {
      const key = await createKey(app);
      const result = expectSuccess(
        await app.post(
          '/v2/workspace/apikey/create',
          { data: { ownerEmail: 'dev@example.com', type: 'testing', createAuthToken: true } },
          key.workspaceHeaders,
        ),
        'API key created successfully.',
      );
      assert.match(result.data.apiKey, /^[0-9A-Za-z]{24}$/);
      assert.match(result.data.authToken, /^[A-Za-z0-9_-]{48}$/);
      expectSuccess(
        await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-svc-api-key': result.data.apiKey, 'x-svc-auth-token': result.data.authToken }),
      );
      const tokenless = expectSuccess(
        await app.post('/v2/workspace/apikey/create', { data: { ownerEmail: 'dev@example.com', type: 'testing' } }, key.workspaceHeaders),
      );
      assert.deepEqual(Object.keys(tokenless.data), ['apiKey']);
    });

    it('checks fields, then self-serve, then plan, then the production limit', async () => {
      const key = await createKey(app);
      const create = (data: Record<string, unknown>) =>
        app.post('/v2/workspace/apikey/create', { data: { ownerEmail: 'ops@example.com', ...data } }, key.workspaceHeaders);
      expectError(await create({ type: 'staging' }), 400, 'INVALID_ARGUMENT', 'data.type must be one of: testing, production');
      expectError(await create({ type: 'production', persistenceDBRegion: '' }), 400, 'INVALID_ARGUMENT', /^data\.persistenceDBRegion must be one of/);
      expectError(await create({ type: 'testing', realtimeDBRegion: 'mars-1' }), 400, 'INVALID_ARGUMENT', /^data\.realtimeDBRegion must be one of/);
      expectError(await create({ type: 'testing', ownerEmail: 'nope' }), 400, 'INVALID_ARGUMENT', 'data.ownerEmail must be a valid e-mail address');
      expectError(await create({ type: 'production' }), 403, 'PERMISSION_DENIED');
      await setPlan(key, 'free', true);
      expectError(await create({ type: 'production' }), 400, 'FAILED_PRECONDITION');
      await setPlan(key, 'paid', true);
      for (let i = 0; i < 3; i++) expectSuccess(await create({ type: 'production', persistenceDBRegion: 'europe-west1', realtimeDBRegion: 'europe-west1' }));
      expectError(await create({ type: 'production' }), 429, 'RESOURCE_EXHAUSTED');
      expectSuccess(await create({ type: 'testing' }));
      const stored = await app.dataSource.getRepository(ApiKeyEntity).findBy({ workspaceId: key.workspaceId, type: 'production' });
      assert.ok(stored.every((k) => k.persistenceDbRegion === 'europe-west1' && k.realtimeDbRegion === 'europe-west1'));
    });

    it('answers bad input with INVALID_ARGUMENT naming the field', async () => {
      const key = await createKey(app);
      const create = (data: Record<string, unknown>) =>
        app.post('/v2/workspace/apikey/create', { data: { ownerEmail: 'ops@example.com', type: 'testing', ...data } }, key.workspaceHeaders);
      expectError(await create({ useEmailService: 'yes' }), 400, 'INVALID_ARGUMENT', 'data.useEmailService must be a boolean');
      expectError(await create({ emailServiceConfig: 'x' }), 400, 'INVALID_ARGUMENT', 'data.emailServiceConfig must be an object');
      expectError(
        await create({ emailServiceConfig: { fromEmail: 'nope' } }),
        400,
        'INVALID_ARGUMENT',
        'data.emailServiceConfig.fromEmail must be a valid e-mail address',
      );
      expectError(await create({ emailServiceConfig: { secret: 1 } }), 400, 'INVALID_ARGUMENT', 'Unknown field: data.emailServiceConfig.secret');
      expectError(
        await create({ webhookServiceConfig: { rawNotificationUrl: 'ftp://x' } }),
        400,
        'INVALID_ARGUMENT',
        'data.webhookServiceConfig.rawNotificationUrl must be an http(s) URL',
      );
      expectError(
        await create({ allowedDomains: ['ok.example.com', 'not a domain'] }),
        400,
        'INVALID_ARGUMENT',
        /^data\.allowedDomains\[1\] is not a valid domain/,
      );
      expectError(await create({ apiKeyName: 42 }), 400, 'INVALID_ARGUMENT', 'data.apiKeyName must be a string');
      expectError(await create({ extra: true }), 400, 'INVALID_ARGUMENT', 'Unknown field: data.extra');
      const workspace = expectSuccess(await app.post('/v2/workspace/get', { data: {} }, key.workspaceHeaders)).data;
      assert.equal(Object.keys(workspace.apiKeyList).length, 1, 'nothing was created by refused requests');
    });

    it('initialises the key’s configs and domains from the creation options', async () => {
      const key = await createKey(app);
      const result = expectSuccess(
        await app.post(
          '/v2/workspace/apikey/create',
          {
            data: {
              ownerEmail: 'dev@example.com',
              type: 'testing',
              createAuthToken: true,
              allowedDomains: ['https://www.App.example.com/path'],
              addLocalHostToAllowedDomains: true,
              useEmailService: true,
              emailServiceConfig: { type: 'sendgrid', apiKey: 'SG.provider-secret', fromEmail: 'noreply@example.com', fromCompany: 'Acme' },
              useWebhookService: true,
              webhookServiceConfig: { authToken: 'hook-secret', rawNotificationUrl: 'https://hooks.example.com/raw' },
              useNotificationService: true,
              enablePrivateComments: true,
              requireAutoOrgUser: true,
            },
          },
          key.workspaceHeaders,
        ),
      );
      const headers = { 'x-svc-api-key': result.data.apiKey, 'x-svc-auth-token': result.data.authToken };
      const domains = expectSuccess(await app.post('/v2/workspace/domains/get', { data: {} }, headers)).data;
      assert.deepEqual(domains.allowedDomains.sort(), ['app.example.com', 'localhost']);
      const stored = await app.dataSource.getRepository(ApiKeyEntity).findOneByOrFail({ id: result.data.apiKey });
      assert.equal(stored.emailConfig.useEmailService, true);
      assert.equal(stored.emailConfig.emailServiceConfig.type, 'thirdparty');
      assert.equal(stored.emailConfig.emailServiceConfig.fromCompany, 'Acme');
      assert.equal(stored.emailConfig.emailServiceConfig.triggers?.['comment.add'], true);
      assert.equal(stored.emailConfig.emailServiceConfig.triggers?.['comment_annotation.suggestion_accept'], false);
      assert.notEqual(stored.emailConfig.emailServiceConfig.apiKeyEnc, 'SG.provider-secret');
      assert.equal(stored.webhookConfig.useWebhookService, true);
      assert.equal(stored.webhookConfig.webhookServiceConfig.rawNotificationUrl, 'https://hooks.example.com/raw');
      assert.equal(stored.notificationConfig.useNotificationService, true);
      assert.deepEqual(stored.settings, { enablePrivateComments: true, requireAutoOrgUser: true, defaultDocumentAccessType: 'public' });
    });

    it('does not seed email triggers when setDefaultEmailTriggers is false', async () => {
      const key = await createKey(app);
      const result = expectSuccess(
        await app.post(
          '/v2/workspace/apikey/create',
          { data: { ownerEmail: 'dev@example.com', type: 'testing', useEmailService: true, setDefaultEmailTriggers: false } },
          key.workspaceHeaders,
        ),
      );
      const stored = await app.dataSource.getRepository(ApiKeyEntity).findOneByOrFail({ id: result.data.apiKey });
      assert.equal(stored.emailConfig.useEmailService, true);
      assert.equal(stored.emailConfig.emailServiceConfig.triggers, undefined);
    });
  });

  describe('API key listing, rename and tokens', () => {
    it('pages through keys without repeats, with filter-bound tokens', async () => {
      const key = await createKey(app);
      for (let i = 0; i < 3; i++)
        expectSuccess(
          await app.post('/v2/workspace/apikey/create', { data: { ownerEmail: key.ownerEmail, type: 'testing', apiKeyName: `K${i}` } }, key.workspaceHeaders),
        );
      const seen: string[] = [];
      let pageToken: string | undefined;
      do {
        const result = expectSuccess(
          await app.post('/v2/workspace/apikeys/get', { data: { pageSize: 1, ...(pageToken ? { pageToken } : {}) } }, key.workspaceHeaders),
          'API keys retrieved successfully.',
        );
        assert.equal(result.data.length, 1);
        assert.deepEqual(Object.keys(result.data[0]).sort(), ['apiKeyName', 'id', 'type']);
        seen.push(result.data[0].id);
        pageToken = result.nextPageToken;
        if (seen.length === 2) {
          expectError(
            await app.post('/v2/workspace/apikeys/get', { data: { pageSize: 2, pageToken: `${pageToken}x` } }, key.workspaceHeaders),
            400,
            'INVALID_ARGUMENT',
            'Invalid page token.',
          );
          expectError(
            await app.post('/v2/workspace/apikeys/get', { data: { pageSize: 1, pageToken, apiKeys: [key.apiKey] } }, key.workspaceHeaders),
            400,
            'INVALID_ARGUMENT',
            'Invalid page token.',
          );
          const other = await createKey(app);
          expectError(
            await app.post('/v2/workspace/apikeys/get', { data: { pageSize: 1, pageToken } }, other.workspaceHeaders),
            400,
            'INVALID_ARGUMENT',
            'Invalid page token.',
          );
        }
      } while (pageToken);
      assert.equal(seen.length, 4);
      assert.equal(new Set(seen).size, 4);
      const filtered = expectSuccess(await app.post('/v2/workspace/apikeys/get', { data: { apiKeys: [key.apiKey, 'unknown'] } }, key.workspaceHeaders));
      assert.deepEqual(
        filtered.data.map((k: { id: string }) => k.id),
        [key.apiKey],
      );
      assert.equal(filtered.nextPageToken, undefined);
    });

    it('renames a key; unknown and foreign keys are NOT_FOUND', async () => {
      const key = await createKey(app);
      const other = await createKey(app);
      const result = expectSuccess(
        await app.post('/v2/workspace/apikey/update', { data: { apiKey: key.apiKey, apiKeyName: 'Renamed' } }, key.workspaceHeaders),
        'API key updated successfully.',
      );
      assert.equal(result.data, null);
      const workspace = expectSuccess(await app.post('/v2/workspace/get', { data: {} }, key.workspaceHeaders)).data;
      assert.equal(workspace.apiKeyList[key.apiKey].apiKeyName, 'Renamed');
      expectError(
        await app.post('/v2/workspace/apikey/update', { data: { apiKey: other.apiKey, apiKeyName: 'Hijack' } }, key.workspaceHeaders),
        404,
        'NOT_FOUND',
        'API key not found.',
      );
      expectError(
        await app.post('/v2/workspace/apikey/update', { data: { apiKey: 'unknown', apiKeyName: 'X' } }, key.workspaceHeaders),
        404,
        'NOT_FOUND',
        'API key not found.',
      );
      expectError(
        await app.post('/v2/workspace/apikey/update', { data: { apiKey: key.apiKey } }, key.workspaceHeaders),
        400,
        'INVALID_ARGUMENT',
        'data.apiKeyName must be a string',
      );
    });

    it('lists auth tokens; reset replaces them and the old one stops at once', async () => {
      const key = await createKey(app);
      const other = await createKey(app);
      const tokens = expectSuccess(
        await app.post('/v2/workspace/authtokens/get', { data: { apiKey: key.apiKey } }, key.workspaceHeaders),
        'Auth tokens retrieved successfully.',
      ).data;
      assert.deepEqual(tokens, { apiKey: key.apiKey, authTokens: [{ token: key.authToken, name: 'Default Auth Token', domains: [] }] });
      expectError(
        await app.post('/v2/workspace/authtokens/get', { data: { apiKey: other.apiKey } }, key.workspaceHeaders),
        404,
        'NOT_FOUND',
        'API key not found.',
      );

      const reset = expectSuccess(
        await app.post('/v2/workspace/authtoken/reset', { data: { apiKey: key.apiKey } }, key.workspaceHeaders),
        'Auth token reset successfully.',
      ).data;
      assert.equal(reset.apiKey, key.apiKey);
      assert.equal(reset.newAuthToken.name, 'Default Auth Token');
      assert.notEqual(reset.newAuthToken.token, key.authToken);
      expectError(await agentFor(app, key)('/v2/workspace/domains/get', {}), 403, 'PERMISSION_DENIED', 'Invalid API key or auth token.');
      expectSuccess(await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-svc-api-key': key.apiKey, 'x-svc-auth-token': reset.newAuthToken.token }));
      expectError(
        await app.post('/v2/workspace/authtoken/reset', { data: { apiKey: other.apiKey } }, key.workspaceHeaders),
        404,
        'NOT_FOUND',
        'API key not found.',
      );
      expectSuccess(await agentFor(app, other)('/v2/workspace/domains/get', {}));
    });
  });

  describe('allowed domains', () => {
    it('normalises, adds, lists and keeps keys apart', async () => {
      const key = await createKey(app);
      const other = await createKey(app);
      const added = expectSuccess(
        await agentFor(app, key)('/v2/workspace/domains/add', {
          domains: ['https://www.Example.com:8080/path?q=1', '*.Apps.example.org', 'example.com', '10.0.0.1'],
        }),
        'Domain(s) added successfully to allowed domains.',
      );
      assert.deepEqual(added.data, { domainsAdded: ['example.com', '*.apps.example.org', '10.0.0.1'] });
      const listed = expectSuccess(await agentFor(app, key)('/v2/workspace/domains/get', {}), 'Allowed domains retrieved successfully.').data;
      assert.deepEqual([...listed.allowedDomains].sort(), ['*.apps.example.org', '10.0.0.1', 'example.com']);
      assert.deepEqual(expectSuccess(await agentFor(app, other)('/v2/workspace/domains/get', {})).data, { allowedDomains: [] });
    });

    it('adds the new ones and answers INTERNAL listing the skipped ones', async () => {
      const key = await createKey(app);
      expectSuccess(await agentFor(app, key)('/v2/workspace/domains/add', { domains: ['a.example.com'] }));
      const response = await agentFor(app, key)('/v2/workspace/domains/add', { domains: ['a.example.com', 'b.example.com'] });
      expectError(response, 500, 'INTERNAL', 'Domain(s) added successfully to allowed domains. Skipped existing domains.');
      assert.deepEqual(response.body.error.details, { domainsAdded: ['b.example.com'], skippedDomains: ['a.example.com'] });
      const listed = expectSuccess(await agentFor(app, key)('/v2/workspace/domains/get', {})).data.allowedDomains;
      assert.deepEqual([...listed].sort(), ['a.example.com', 'b.example.com']);
    });

    it('refuses entries that are not hostnames, naming the entry', async () => {
      const key = await createKey(app);
      for (const bad of ['', 'not a domain', 'exa_mple.com', '-bad.com', 'http://']) {
        expectError(
          await agentFor(app, key)('/v2/workspace/domains/add', { domains: ['ok.com', bad] }),
          400,
          'INVALID_ARGUMENT',
          /^data\.domains\[1\] (is not a valid domain|must be a non-empty string)/,
        );
      }
      assert.deepEqual(expectSuccess(await agentFor(app, key)('/v2/workspace/domains/get', {})).data.allowedDomains, []);
    });

    it('deletes domains, reporting the non-existing ones', async () => {
      const key = await createKey(app);
      expectSuccess(await agentFor(app, key)('/v2/workspace/domains/add', { domains: ['a.example.com', 'b.example.com'] }));
      expectSuccess(
        await agentFor(app, key)('/v2/workspace/domains/delete', { domains: ['https://a.example.com'] }),
        'Domain(s) removed successfully from allowed domains.',
      );
      const response = await agentFor(app, key)('/v2/workspace/domains/delete', { domains: ['b.example.com', 'c.example.com'] });
      expectError(response, 500, 'INTERNAL', 'Domain(s) removed successfully from allowed domains. Skipped non-existing domains.');
      assert.deepEqual(response.body.error.details, { domainsRemoved: ['b.example.com'], skippedDomains: ['c.example.com'] });
      assert.deepEqual(expectSuccess(await agentFor(app, key)('/v2/workspace/domains/get', {})).data.allowedDomains, []);
    });
  });

  describe('login link', () => {
    const link = (email: string, continueUrl = 'https://console.example.com/welcome?from=mail') =>
      app.post('/v2/workspace/email/send-login-link', { data: { email, continueUrl } });

    it('mails a single-use link that verify exchanges for the owner’s workspaces', async () => {
      const key = await createKey(app);
      const result = expectSuccess(await link(key.ownerEmail), 'Login link sent successfully');
      assert.equal(result.data, null);
      const mail = await smtp.waitFor(key.ownerEmail);
      const url = new URL(/https:\/\/console\.example\.com\/welcome\?\S+/.exec(mail.text)![0]);
      assert.equal(url.searchParams.get('from'), 'mail');
      const token = url.searchParams.get('token')!;
      assert.ok(token.length >= 40);
      const verified = expectSuccess(await app.post('/v2/workspace/login/verify', { data: { token } }), 'Login verified successfully.').data;
      assert.equal(verified.email, key.ownerEmail);
      assert.deepEqual(
        verified.workspaces.map((w: { id: string }) => w.id),
        [key.workspaceId],
      );
      assert.equal(verified.workspaces[0].authToken, key.workspaceToken);
      expectError(await app.post('/v2/workspace/login/verify', { data: { token } }), 403, 'PERMISSION_DENIED', 'Invalid or expired login token.');
    });

    it("email/status says whether the owner has opened a login link (upstream's wording), NOT_FOUND for a stranger", async () => {
      const key = await createKey(app);
      const status = (email: string) => app.post('/v2/workspace/email/status', { data: { ownerEmail: email } });
      assert.deepEqual(expectSuccess(await status(key.ownerEmail.toUpperCase()), 'Email not yet verified').data, { verified: false });
      expectSuccess(await link(key.ownerEmail));
      const token = new URL(/https:\/\/console\.example\.com\/welcome\?\S+/.exec((await smtp.waitFor(key.ownerEmail)).text)![0]).searchParams.get('token')!;
      // A link sent but not opened proves nothing yet.
      assert.equal(expectSuccess(await status(key.ownerEmail)).data.verified, false);
      expectSuccess(await app.post('/v2/workspace/login/verify', { data: { token } }));
      assert.deepEqual(expectSuccess(await status(key.ownerEmail), 'Email verified and workspace reactivated').data, { verified: true });
      expectError(await status(uniqueEmail('stranger')), 404, 'NOT_FOUND', 'Email not found.');
      expectError(await status('not-an-address'), 400, 'INVALID_ARGUMENT', /ownerEmail/);
    });

    it('refuses an expired or unknown token', async () => {
      const key = await createKey(app);
      expectSuccess(await link(key.ownerEmail, 'http://localhost:3000/'));
      const token = new URL(/http:\/\/localhost:3000\/\S+/.exec((await smtp.waitFor(key.ownerEmail)).text)![0]).searchParams.get('token')!;
      await app.dataSource.getRepository(LoginTokenEntity).update({ email: key.ownerEmail }, { expiresAt: Date.now() - 1 });
      expectError(await app.post('/v2/workspace/login/verify', { data: { token } }), 403, 'PERMISSION_DENIED', 'Invalid or expired login token.');
      expectError(await app.post('/v2/workspace/login/verify', { data: { token: 'made-up' } }), 403, 'PERMISSION_DENIED', 'Invalid or expired login token.');
    });

    it('answers the same for an address without workspaces and sends nothing', async () => {
      const stranger = uniqueEmail('stranger');
      expectSuccess(await link(stranger), 'Login link sent successfully');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(smtp.mails.filter((m) => m.to.includes(stranger)).length, 0);
    });

    it('validates continueUrl and the e-mail domain', async () => {
      expectError(await link(uniqueEmail(), 'not a url'), 400, 'INVALID_ARGUMENT', 'Invalid url for continueUrl');
      expectError(await link(uniqueEmail(), 'ftp://console.example.com/x'), 400, 'INVALID_ARGUMENT', 'Invalid url for continueUrl');
      expectError(await link(uniqueEmail(), 'https://evil.example.net/'), 400, 'INVALID_ARGUMENT', 'The continueUrl domain is not allowed.');
      expectError(await link('someone@mailinator.com'), 400, 'INVALID_ARGUMENT', 'This email domain is not supported.');
      expectError(await link('nope'), 400, 'INVALID_ARGUMENT', 'data.email must be a valid e-mail address');
    });

    it('limits links per target e-mail', async () => {
      const email = uniqueEmail();
      for (let i = 0; i < 3; i++) expectSuccess(await link(email));
      expectError(await link(email), 429, 'RESOURCE_EXHAUSTED', 'Rate limit exceeded for this endpoint. Try again later.');
      expectSuccess(await link(uniqueEmail()));
    });
  });

  describe('secrets at rest', () => {
    it('the database holds no credential in clear', async () => {
      const key = await createKey(app);
      const created = expectSuccess(
        await app.post(
          '/v2/workspace/apikey/create',
          {
            data: {
              ownerEmail: 'dev@example.com',
              type: 'testing',
              createAuthToken: true,
              emailServiceConfig: { apiKey: 'SG.clear-provider-key' },
              webhookServiceConfig: { authToken: 'clear-hook-token' },
            },
          },
          key.workspaceHeaders,
        ),
      ).data;
      const secrets = [key.workspaceToken, key.authToken, created.authToken, 'SG.clear-provider-key', 'clear-hook-token'];
      const tables = ['account', 'workspace', 'api_key', 'api_key_auth_token', 'allowed_domain', 'login_token', 'outgoing_mail'];
      for (const table of tables) {
        const rows = JSON.stringify(await app.dataSource.query(`SELECT * FROM ${table}`));
        for (const secret of secrets) assert.ok(!rows.includes(secret), `${table} holds a secret in clear`);
      }
    });
  });
});
