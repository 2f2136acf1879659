import { AppConfig } from '../src/config/app-config.js';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { defaultTriggers } from '../src/common/event-catalogue.js';
import { startApp } from './helpers/app.js';
import { agentFor, createKey, expectError, expectSuccess, uniqueEmail, withKeyedApp } from './factories/workspace.js';

const rsaKey = (bits: number, type: 'spki' | 'pkcs1' = 'spki') =>
  generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ format: 'der', type }).toString('base64');

describe('delivery configs (contract part 3)', () => {
  const keyed = withKeyedApp();
  /** A fresh key per test, so each starts from "never configured". */
  const freshKey = async () => agentFor(keyed.app, await createKey(keyed.app));

  describe('email config', () => {
    it('reads the never-configured defaults, without triggers', async () => {
      const call = await freshKey();
      const result = expectSuccess(await call('/v2/workspace/emailconfig/get', {}), 'Email configuration retrieved successfully.');
      assert.deepEqual(result.data, {
        useEmailService: false,
        emailServiceConfig: { type: 'default', apiKey: '', fromEmail: '', fromCompany: '', commentTemplateId: '', tagTemplateId: '' },
      });
    });

    it('needs at least one field', async () => {
      const call = await freshKey();
      expectError(
        await call('/v2/workspace/emailconfig/update', {}),
        400,
        'INVALID_ARGUMENT',
        'At least one of data.useEmailService, data.emailServiceConfig is required.',
      );
    });

    it('a partial update without enabling keeps the rest and seeds nothing', async () => {
      const call = await freshKey();
      const data = expectSuccess(
        await call('/v2/workspace/emailconfig/update', { emailServiceConfig: { fromEmail: 'team@example.com' } }),
        'Email configuration updated successfully.',
      ).data;
      assert.deepEqual(data, {
        useEmailService: false,
        emailServiceConfig: { type: 'default', apiKey: '', fromEmail: 'team@example.com', fromCompany: '', commentTemplateId: '', tagTemplateId: '' },
      });
    });

    it('first enable seeds type custom and the default triggers, keeps stored fields and merges the request over them', async () => {
      const call = await freshKey();
      await call('/v2/workspace/emailconfig/update', { emailServiceConfig: { fromCompany: 'Acme' } });
      // Typed loosely: deepEqual's assertion would otherwise narrow it to the literal below.
      const data: Record<string, any> = expectSuccess(
        await call('/v2/workspace/emailconfig/update', {
          useEmailService: true,
          emailServiceConfig: { triggers: { 'comment.add': false }, fromEmail: 'a@example.com' },
        }),
      ).data;
      assert.equal(data.emailServiceConfig.triggers['comment_annotation.suggestion_accept'], false);
      assert.equal(data.emailServiceConfig.triggers['huddle.create'], true);
      assert.equal(data.emailServiceConfig.triggers['crdt.update_data'], false);
      assert.deepEqual(data, {
        useEmailService: true,
        emailServiceConfig: {
          type: 'custom',
          apiKey: '',
          fromEmail: 'a@example.com',
          fromCompany: 'Acme',
          commentTemplateId: '',
          tagTemplateId: '',
          triggers: { ...defaultTriggers(), 'comment.add': false },
        },
      });
      assert.deepEqual(expectSuccess(await call('/v2/workspace/emailconfig/get', {})).data, data);

      // Triggers are stored now: turning off and on again does not re-seed.
      await call('/v2/workspace/emailconfig/update', { useEmailService: false });
      await call('/v2/workspace/emailconfig/update', { emailServiceConfig: { triggers: { 'huddle.join': false } } });
      const again = expectSuccess(await call('/v2/workspace/emailconfig/update', { useEmailService: true })).data;
      assert.equal(again.emailServiceConfig.triggers['comment.add'], false);
      assert.equal(again.emailServiceConfig.triggers['huddle.join'], false);
    });

    it('type custom alone also seeds', async () => {
      const call = await freshKey();
      const data = expectSuccess(await call('/v2/workspace/emailconfig/update', { emailServiceConfig: { type: 'custom' } })).data;
      assert.equal(data.useEmailService, true);
      assert.deepEqual(data.emailServiceConfig.triggers, defaultTriggers());
    });

    it('stores sendgrid as thirdparty and the provider key encrypted, answering it as set', async () => {
      const call = await freshKey();
      const data = expectSuccess(
        await call('/v2/workspace/emailconfig/update', { useEmailService: true, emailServiceConfig: { type: 'sendgrid', apiKey: 'SG.secret-provider-key' } }),
      ).data;
      assert.equal(data.emailServiceConfig.type, 'thirdparty');
      assert.equal(data.emailServiceConfig.apiKey, 'SG.secret-provider-key');
      const rows = await keyed.app.dataSource.query('SELECT email_config FROM api_key');
      assert.ok(rows.length > 0);
      assert.ok(
        rows.every((row: { email_config: string }) => !row.email_config.includes('SG.secret-provider-key')),
        'no provider key in clear',
      );
    });

    it('refuses invalid settings with the field named', async () => {
      const call = await freshKey();
      const refused = async (data: unknown, message: string) =>
        expectError(await call('/v2/workspace/emailconfig/update', data), 400, 'INVALID_ARGUMENT', message);
      await refused({ emailServiceConfig: { fromEmail: 'not-an-address' } }, 'data.emailServiceConfig.fromEmail must be a valid e-mail address');
      await refused({ emailServiceConfig: { type: 'smtp' } }, 'data.emailServiceConfig.type must be one of: default, thirdparty, sendgrid, custom');
      await refused(
        { emailServiceConfig: { triggers: { 'comment.explode': true } } },
        'data.emailServiceConfig.triggers.comment.explode is not an event type of the catalogue',
      );
      await refused({ emailServiceConfig: { triggers: { 'comment.add': 'yes' } } }, 'data.emailServiceConfig.triggers.comment.add must be a boolean');
      await refused({ emailServiceConfig: { colour: 'red' } }, 'Unknown field: data.emailServiceConfig.colour');
      await refused({ useEmailService: 'true' }, 'data.useEmailService must be a boolean');
      await refused({ useEmailService: true, emailServiceConfig: { type: 'thirdparty' } }, 'Invalid email service configuration.');
      // Nothing of the refused requests was stored.
      assert.equal(expectSuccess(await call('/v2/workspace/emailconfig/get', {})).data.useEmailService, false);
    });
  });

  describe('webhook config', () => {
    it('reads the never-configured defaults, and first enable seeds the triggers', async () => {
      const call = await freshKey();
      assert.deepEqual(expectSuccess(await call('/v2/workspace/webhookconfig/get', {}), 'Webhook configuration retrieved successfully.').data, {
        useWebhookService: false,
        webhookServiceConfig: {
          authToken: '',
          rawNotificationUrl: '',
          processedNotificationUrl: '',
          encodeData: false,
          encryptData: false,
          publicKey: '',
          enableDataProtection: false,
        },
      });
      const data = expectSuccess(
        await call('/v2/workspace/webhookconfig/update', {
          useWebhookService: true,
          webhookServiceConfig: { authToken: 'hook-token', rawNotificationUrl: 'https://hooks.example.com/raw' },
        }),
        'Webhook configuration updated successfully.',
      ).data;
      assert.deepEqual(data, {
        useWebhookService: true,
        webhookServiceConfig: {
          authToken: 'hook-token',
          rawNotificationUrl: 'https://hooks.example.com/raw',
          processedNotificationUrl: '',
          encodeData: false,
          encryptData: false,
          publicKey: '',
          enableDataProtection: false,
          triggers: defaultTriggers(),
        },
      });
    });

    it('accepts an RSA public key of 2048 bits (SPKI or PKCS#1) and refuses 1024 bits, PEM and non-RSA keys', async () => {
      const call = await freshKey();
      const spki = rsaKey(2048);
      assert.equal(
        expectSuccess(await call('/v2/workspace/webhookconfig/update', { webhookServiceConfig: { publicKey: spki, encryptData: true } })).data
          .webhookServiceConfig.publicKey,
        spki,
      );
      expectSuccess(await call('/v2/workspace/webhookconfig/update', { webhookServiceConfig: { publicKey: rsaKey(2048, 'pkcs1') } }));
      expectError(
        await call('/v2/workspace/webhookconfig/update', { webhookServiceConfig: { publicKey: rsaKey(1024) } }),
        400,
        'INVALID_ARGUMENT',
        'data.webhookServiceConfig.publicKey must be an RSA key of at least 2048 bits (got 1024)',
      );
      const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'pem', type: 'spki' }).toString();
      expectError(
        await call('/v2/workspace/webhookconfig/update', { webhookServiceConfig: { publicKey: pem } }),
        400,
        'INVALID_ARGUMENT',
        'data.webhookServiceConfig.publicKey must be base64 DER of an RSA public key (no PEM lines)',
      );
      const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
      expectError(
        await call('/v2/workspace/webhookconfig/update', { webhookServiceConfig: { publicKey: ec } }),
        400,
        'INVALID_ARGUMENT',
        'data.webhookServiceConfig.publicKey must be an RSA public key',
      );
    });

    it('refuses encryptData without a key, and bad URLs', async () => {
      const call = await freshKey();
      expectError(
        await call('/v2/workspace/webhookconfig/update', { webhookServiceConfig: { encryptData: true } }),
        400,
        'INVALID_ARGUMENT',
        'data.webhookServiceConfig.publicKey is required when encryptData is true.',
      );
      expectError(
        await call('/v2/workspace/webhookconfig/update', { webhookServiceConfig: { rawNotificationUrl: 'ftp://example.com' } }),
        400,
        'INVALID_ARGUMENT',
        'data.webhookServiceConfig.rawNotificationUrl must be an http(s) URL',
      );
      expectError(
        await call('/v2/workspace/webhookconfig/update', {}),
        400,
        'INVALID_ARGUMENT',
        'At least one of data.useWebhookService, data.webhookServiceConfig is required.',
      );
    });
  });

  describe('notification config', () => {
    it('first enable seeds the triggers; a sent trigger merges over them', async () => {
      const call = await freshKey();
      // Upstream's delay and batching defaults on a fresh key.
      const delayConfig = { isEnabled: false, delaySeconds: 10 };
      const batchConfig = {
        document: { isEnabled: false, batchWindowSeconds: 10, maxActivities: 2 },
        user: { isEnabled: false, batchWindowSeconds: 10, maxActivities: 2 },
      };
      assert.deepEqual(expectSuccess(await call('/v2/workspace/notificationconfig/get', {}), 'Notification configuration retrieved successfully.').data, {
        useNotificationService: false,
        notificationServiceConfig: { delayConfig, batchConfig },
      });
      const data = expectSuccess(
        await call('/v2/workspace/notificationconfig/update', {
          useNotificationService: true,
          notificationServiceConfig: { triggers: { 'reaction.add': true } },
        }),
        'Notification configuration updated successfully.',
      ).data;
      assert.deepEqual(data, {
        useNotificationService: true,
        notificationServiceConfig: { triggers: { ...defaultTriggers(), 'reaction.add': true }, delayConfig, batchConfig },
      });
      expectError(
        await call('/v2/workspace/notificationconfig/update', {}),
        400,
        'INVALID_ARGUMENT',
        'At least one of data.useNotificationService, data.notificationServiceConfig is required.',
      );
    });

    it("stores upstream's delayConfig and batchConfig, merging field by field, within upstream's ranges", async () => {
      const call = await freshKey();
      const update = async (notificationServiceConfig: unknown) =>
        expectSuccess(await call('/v2/workspace/notificationconfig/update', { notificationServiceConfig })).data.notificationServiceConfig;
      await update({ delayConfig: { isEnabled: true, delaySeconds: 30 } });
      const after = await update({ batchConfig: { user: { isEnabled: true, maxActivities: 5 } }, delayConfig: { delaySeconds: 60 } });
      assert.deepEqual(after.delayConfig, { isEnabled: true, delaySeconds: 60 });
      assert.deepEqual(after.batchConfig, {
        document: { isEnabled: false, batchWindowSeconds: 10, maxActivities: 2 },
        user: { isEnabled: true, batchWindowSeconds: 10, maxActivities: 5 },
      });
      assert.deepEqual(expectSuccess(await call('/v2/workspace/notificationconfig/get', {})).data.notificationServiceConfig, after);
      for (const [config, field] of [
        [{ delayConfig: { delaySeconds: 9 } }, 'delayConfig.delaySeconds'],
        [{ delayConfig: { delaySeconds: 15_552_001 } }, 'delayConfig.delaySeconds'],
        [{ batchConfig: { document: { batchWindowSeconds: 604_801 } } }, 'batchConfig.document.batchWindowSeconds'],
        [{ batchConfig: { user: { maxActivities: 1 } } }, 'batchConfig.user.maxActivities'],
        [{ batchConfig: { user: { maxActivities: 2.5 } } }, 'batchConfig.user.maxActivities'],
        [{ delayConfig: { isEnabled: 'yes' } }, 'delayConfig.isEnabled'],
        [{ delayConfig: { later: true } }, 'delayConfig.later'],
      ] as const) {
        expectError(
          await call('/v2/workspace/notificationconfig/update', { notificationServiceConfig: config }),
          400,
          'INVALID_ARGUMENT',
          new RegExp(field.replace(/\./g, '\\.')),
        );
      }
      // Nothing refused was stored.
      assert.deepEqual(expectSuccess(await call('/v2/workspace/notificationconfig/get', {})).data.notificationServiceConfig, after);
    });

    it("takes triggers grouped by feature, as upstream's notification config sends them, and stores them flat", async () => {
      const call = await freshKey();
      const triggers = async () => expectSuccess(await call('/v2/workspace/notificationconfig/get', {})).data.notificationServiceConfig.triggers;
      expectSuccess(
        await call('/v2/workspace/notificationconfig/update', {
          useNotificationService: true,
          notificationServiceConfig: {
            triggers: {
              comment: { 'comment.add': false, 'comment_annotation.suggestion_accept': true },
              huddle: { 'huddle.join': false },
              'reaction.add': true,
            },
          },
        }),
      );
      assert.deepEqual(await triggers(), {
        ...defaultTriggers(),
        'comment.add': false,
        'comment_annotation.suggestion_accept': true,
        'huddle.join': false,
        'reaction.add': true,
      });
      for (const [sent, message] of [
        [{ huddle: { 'comment.add': true } }, 'data.notificationServiceConfig.triggers.huddle.comment.add is not a huddle event type'],
        [{ comment: true }, 'data.notificationServiceConfig.triggers.comment must be an object of comment event types to booleans'],
        [{ comment: { 'comment.add': 'yes' } }, 'data.notificationServiceConfig.triggers.comment.comment.add must be a boolean'],
        [{ chat: { 'comment.add': true } }, 'data.notificationServiceConfig.triggers.chat is not an event type of the catalogue nor a feature group'],
      ] as const) {
        expectError(await call('/v2/workspace/notificationconfig/update', { notificationServiceConfig: { triggers: sent } }), 400, 'INVALID_ARGUMENT', message);
      }
      assert.equal((await triggers())['comment.add'], false, 'nothing refused was stored');
    });
  });

  it("apikeyconfig: upstream's get/update pair over the key's settings; AI keys encrypted at rest and answered masked", async () => {
    const key = await createKey(keyed.app);
    const call = agentFor(keyed.app, key);
    assert.deepEqual(expectSuccess(await call('/v2/workspace/apikeyconfig/get', {}), 'API key metadata retrieved successfully.').data, {
      ownerEmail: key.ownerEmail,
      planInfo: { type: 'free' },
      defaultDocumentAccessType: 'public',
      isPrivateCommentsEnabled: false,
      requireJwtToken: false,
      requireAutoOrgUser: false,
      // Ours: the attachment limits the key's uploads get (the service's until it sets its own).
      attachmentConfig: {
        maxBytes: keyed.app.app.get(AppConfig).attachments.maxBytes,
        types: [...keyed.app.app.get(AppConfig).attachments.types],
        isCustom: false,
      },
    });
    const secret = 'sk-openai-0123456789abcdefghij';
    const echo = expectSuccess(
      await call('/v2/workspace/apikeyconfig/update', {
        requireJwtToken: true,
        defaultDocumentAccessType: 'restricted',
        aiModelApiKey: [{ provider: 'openai', customerApiKey: secret }],
      }),
      'API key configuration updated successfully.',
    ).data;
    assert.deepEqual(Object.keys(echo).sort(), ['aiModelsConfig', 'defaultDocumentAccessType', 'requireJwtToken']);
    assert.equal(echo.requireJwtToken, true);
    const shown = echo.aiModelsConfig.openai.displayText as string;
    assert.ok(secret.startsWith(shown.split('...')[0]!) && !shown.includes(secret.slice(10)), shown);
    // The legacy path reads the same; the default access type takes effect at once.
    const after = expectSuccess(await call('/v2/workspace/apikeymetadata/get', {})).data;
    assert.equal(after.defaultDocumentAccessType, 'restricted');
    assert.deepEqual(after.aiModelsConfig, { openai: { displayText: shown } });
    expectSuccess(await call('/v2/organizations/documents/add', { organizationId: 'cfg-org', createOrganization: true, documents: [{ documentId: 'd' }] }));
    assert.equal(expectSuccess(await call('/v2/organizations/documents/get', { organizationId: 'cfg-org' })).data[0].accessType, 'restricted');
    // Never stored in clear.
    const settings = (await keyed.app.dataSource.query(`SELECT settings FROM api_key WHERE id = '${key.apiKey}'`)) as { settings: unknown }[];
    assert.ok(!JSON.stringify(settings).includes(secret));
    expectError(await call('/v2/workspace/apikeyconfig/update', {}), 400, 'INVALID_ARGUMENT', 'At least one field must be provided for update');
    expectError(await call('/v2/workspace/apikeyconfig/update', { planInfo: {} }), 400, 'INVALID_ARGUMENT', /planInfo/);
    expectError(
      await call('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'other', customerApiKey: 'x' }] }),
      400,
      'INVALID_ARGUMENT',
      /aiModelApiKey\[0\]\.provider/,
    );
  });

  it('apikeyconfig updates sent at once all survive (the row is locked while merged)', async () => {
    const call = agentFor(keyed.app, await createKey(keyed.app));
    await Promise.all([
      call('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'openai', customerApiKey: 'sk-openai-aaaaaaaaaaaaaaaa' }] }),
      call('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'anthropic', customerApiKey: 'sk-ant-bbbbbbbbbbbbbbbbbbbb' }] }),
      call('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'gemini', customerApiKey: 'AIza-cccccccccccccccccccc' }] }),
      call('/v2/workspace/apikeyconfig/update', { requireJwtToken: true }),
      call('/v2/workspace/apikeyconfig/update', { requireAutoOrgUser: true }),
      call('/v2/workspace/apikeyconfig/update', { enablePrivateComments: true }),
    ]).then((answers) => answers.forEach((answer) => expectSuccess(answer)));
    const config = expectSuccess(await call('/v2/workspace/apikeyconfig/get', {})).data;
    assert.deepEqual(Object.keys(config.aiModelsConfig).sort(), ['anthropic', 'gemini', 'openai']);
    assert.deepEqual([config.requireJwtToken, config.requireAutoOrgUser, config.isPrivateCommentsEnabled], [true, true, true]);
  });

  it('activityconfig: off until enabled; the first enable seeds comment triggers, immutable and enabledTime; later updates deep-merge', async () => {
    const call = await freshKey();
    const get = async () => expectSuccess(await call('/v2/workspace/activityconfig/get', {}), 'Activity logs configuration retrieved successfully.').data;
    const update = async (activityServiceConfig: unknown) =>
      expectSuccess(await call('/v2/workspace/activityconfig/update', { activityServiceConfig }), 'Activity logs configuration updated successfully.').data;
    assert.deepEqual(await get(), { activityServiceConfig: { isEnabled: false } });

    const before = Date.now();
    const enabled = (await update({ isEnabled: true, immutable: false })).activityServiceConfig;
    const comment = Object.fromEntries(Object.entries(defaultTriggers()).filter(([event]) => event.startsWith('comment')));
    assert.deepEqual(enabled, { isEnabled: true, immutable: false, enabledTime: enabled.enabledTime, triggers: { comment } });
    assert.equal(comment['comment.add'], true);
    assert.equal(comment['comment_annotation.suggestion_accept'], false);
    assert.ok(enabled.enabledTime >= before && enabled.enabledTime <= Date.now());
    assert.deepEqual(await get(), { activityServiceConfig: enabled });

    // Omitted fields are kept (enabledTime too); triggers merge key by key; no second seeding.
    const merged = (await update({ triggers: { comment: { 'comment_annotation.suggestion_accept': true, 'comment.add': false } }, isEnabled: false }))
      .activityServiceConfig;
    assert.deepEqual(merged, {
      ...enabled,
      isEnabled: false,
      triggers: { comment: { ...comment, 'comment_annotation.suggestion_accept': true, 'comment.add': false } },
    });
    assert.deepEqual((await update({ isEnabled: true })).activityServiceConfig, { ...merged, isEnabled: true });

    expectError(
      await call('/v2/workspace/activityconfig/update', { activityServiceConfig: {} }),
      400,
      'INVALID_ARGUMENT',
      'At least one field must be provided for update',
    );
    expectError(await call('/v2/workspace/activityconfig/update', {}), 400, 'INVALID_ARGUMENT', /^data\.activityServiceConfig /);
    expectError(
      await call('/v2/workspace/activityconfig/update', { activityServiceConfig: { triggers: { huddle: { 'huddle.join': true } } } }),
      400,
      'INVALID_ARGUMENT',
      'data.activityServiceConfig.triggers.huddle is not a trigger group of activity logs (only comment)',
    );
    expectError(
      await call('/v2/workspace/activityconfig/update', { activityServiceConfig: { triggers: { comment: { 'huddle.join': true } } } }),
      400,
      'INVALID_ARGUMENT',
      'data.activityServiceConfig.triggers.comment.huddle.join is not a comment event type',
    );
    expectError(
      await call('/v2/workspace/activityconfig/update', { activityServiceConfig: { enabledTime: -1 } }),
      400,
      'INVALID_ARGUMENT',
      /^data\.activityServiceConfig\.enabledTime must be an integer/,
    );
    // A second key sees its own, untouched configuration.
    assert.deepEqual(expectSuccess(await (await freshKey())('/v2/workspace/activityconfig/get', {})).data, { activityServiceConfig: { isEnabled: false } });
  });

  it('activityconfig updates sent at once all survive (the row is locked while merged)', async () => {
    const call = await freshKey();
    const events = ['comment.add', 'comment.update', 'comment.delete', 'comment.accept', 'comment.reject', 'comment.reaction_add'];
    const answers = await Promise.all(
      events.map((event) => call('/v2/workspace/activityconfig/update', { activityServiceConfig: { triggers: { comment: { [event]: false } } } })),
    );
    answers.forEach((answer) => expectSuccess(answer));
    const { triggers } = expectSuccess(await call('/v2/workspace/activityconfig/get', {})).data.activityServiceConfig;
    assert.deepEqual(triggers.comment, Object.fromEntries(events.map((event) => [event, false])));
  });

  it('API-key creation options land in the same configs', async () => {
    const owner = await createKey(keyed.app);
    const created = expectSuccess(
      await keyed.app.post(
        '/v2/workspace/apikey/create',
        {
          data: {
            ownerEmail: owner.ownerEmail,
            type: 'testing',
            createAuthToken: true,
            useEmailService: true,
            setDefaultEmailTriggers: false,
            emailServiceConfig: { type: 'sendgrid', apiKey: 'SG.from-creation', fromEmail: 'ops@example.com' },
            useWebhookService: true,
            webhookServiceConfig: { authToken: 'created-token', processedNotificationUrl: 'https://hooks.example.com/processed' },
            useNotificationService: true,
          },
        },
        owner.workspaceHeaders,
      ),
    ).data;
    const tokens = expectSuccess(await keyed.app.post('/v2/workspace/authtokens/get', { data: { apiKey: created.apiKey } }, owner.workspaceHeaders)).data;
    const call = (path: string, data: unknown) =>
      keyed.app.post(path, { data }, { 'x-svc-api-key': created.apiKey, 'x-svc-auth-token': tokens.authTokens[0].token });
    const email = expectSuccess(await call('/v2/workspace/emailconfig/get', {})).data;
    assert.deepEqual(email, {
      useEmailService: true,
      emailServiceConfig: {
        type: 'thirdparty',
        apiKey: 'SG.from-creation',
        fromEmail: 'ops@example.com',
        fromCompany: '',
        commentTemplateId: '',
        tagTemplateId: '',
      },
    });
    const webhook = expectSuccess(await call('/v2/workspace/webhookconfig/get', {})).data;
    assert.equal(webhook.webhookServiceConfig.authToken, 'created-token');
    assert.deepEqual(webhook.webhookServiceConfig.triggers, defaultTriggers());
    assert.deepEqual(expectSuccess(await call('/v2/workspace/notificationconfig/get', {})).data.notificationServiceConfig.triggers, defaultTriggers());
  });

  describe('advanced webhooks', () => {
    const endpointOps = [
      ['/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/a' }],
      ['/v2/workspace/advancedwebhook/endpoints/get', {}],
      ['/v2/workspace/advancedwebhook/endpoints/update', { endpointId: 'ep_x', description: 'x' }],
      ['/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: 'ep_x' }],
      ['/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: 'ep_x' }],
    ] as const;

    it('never configured: defaults; endpoint operations FAILED_PRECONDITION', async () => {
      const call = await freshKey();
      assert.deepEqual(
        expectSuccess(await call('/v2/workspace/advancedwebhookconfig/get', {}), 'Advanced webhook configuration retrieved successfully.').data,
        {
          isEnabled: false,
          encryptData: false,
          encodeData: false,
          publicKey: '',
          enableDataProtection: false,
        },
      );
      for (const [path, data] of endpointOps)
        expectError(await call(path, data), 400, 'FAILED_PRECONDITION', 'Advanced webhooks are not configured for this workspace.');
    });

    it('an update with no field is INVALID_ARGUMENT, even the first', async () => {
      const call = await freshKey();
      expectError(
        await call('/v2/workspace/advancedwebhookconfig/update', {}),
        400,
        'INVALID_ARGUMENT',
        'At least one of data.isEnabled, data.encryptData, data.encodeData, data.publicKey, data.enableDataProtection is required.',
      );
    });

    it('the first update without isEnabled: true is FAILED_PRECONDITION and changes nothing', async () => {
      const call = await freshKey();
      expectError(
        await call('/v2/workspace/advancedwebhookconfig/update', { encodeData: true }),
        400,
        'FAILED_PRECONDITION',
        'Advanced webhooks are not configured for this workspace.',
      );
      expectError(
        await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: false }),
        400,
        'FAILED_PRECONDITION',
        'Advanced webhooks are not configured for this workspace.',
      );
      assert.equal(expectSuccess(await call('/v2/workspace/advancedwebhookconfig/get', {})).data.encodeData, false);
    });

    it('enable, partial updates, disable (endpoints kept but refused), enable again', async () => {
      const call = await freshKey();
      assert.deepEqual(
        expectSuccess(
          await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true, encodeData: true }),
          'Advanced webhook configuration updated successfully.',
        ).data,
        {
          isEnabled: true,
          encryptData: false,
          encodeData: true,
          publicKey: '',
          enableDataProtection: false,
        },
      );
      const key = rsaKey(2048);
      const data = expectSuccess(await call('/v2/workspace/advancedwebhookconfig/update', { publicKey: key, encryptData: true })).data;
      assert.deepEqual(data, { isEnabled: true, encryptData: true, encodeData: true, publicKey: key, enableDataProtection: false });
      expectError(
        await call('/v2/workspace/advancedwebhookconfig/update', { publicKey: '' }),
        400,
        'INVALID_ARGUMENT',
        'data.publicKey is required when encryptData is true.',
      );
      expectError(
        await call('/v2/workspace/advancedwebhookconfig/update', { publicKey: rsaKey(1024) }),
        400,
        'INVALID_ARGUMENT',
        'data.publicKey must be an RSA key of at least 2048 bits (got 1024)',
      );

      const endpoint = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/kept' })).data;
      expectSuccess(await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: false }));
      for (const [path, body] of endpointOps)
        expectError(await call(path, body), 400, 'FAILED_PRECONDITION', 'Advanced webhooks are disabled for this workspace.');
      expectSuccess(await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
      const listed = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/get', {})).data;
      assert.deepEqual(
        listed.endpoints.map((e: { id: string }) => e.id),
        [endpoint.id],
      );
    });

    it('endpoints: create with explicit nulls, secret, update, list with iterators, delete for good', async () => {
      const call = await freshKey();
      expectSuccess(await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
      const before = Date.now();
      const created = expectSuccess(
        await call('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/one' }),
        'Advanced webhook endpoint created successfully.',
      ).data;
      assert.match(created.id, /^ep_[0-9A-Z]{26}$/);
      assert.deepEqual(created, {
        id: created.id,
        url: 'https://hooks.example.com/one',
        description: null,
        filterTypes: null,
        channels: null,
        disabled: false,
        rateLimit: null,
        uid: null,
        metadata: null,
        createdAt: created.createdAt,
        updatedAt: created.createdAt,
      });
      assert.ok(Date.parse(created.createdAt) >= before - 1000);

      const full = expectSuccess(
        await call('/v2/workspace/advancedwebhook/endpoints/create', {
          url: 'https://hooks.example.com/two',
          description: 'Comments only',
          filterTypes: ['comment.add', 'my.custom.action'],
          channels: ['project-1'],
          disabled: true,
          rateLimit: 5,
          uid: 'two',
          metadata: { team: 'core' },
        }),
      ).data;
      assert.deepEqual(
        { ...full, id: undefined, createdAt: undefined, updatedAt: undefined },
        {
          id: undefined,
          url: 'https://hooks.example.com/two',
          description: 'Comments only',
          filterTypes: ['comment.add', 'my.custom.action'],
          channels: ['project-1'],
          disabled: true,
          rateLimit: 5,
          uid: 'two',
          metadata: { team: 'core' },
          createdAt: undefined,
          updatedAt: undefined,
        },
      );
      expectError(await call('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/dup', uid: 'two' }), 409, 'ALREADY_EXISTS');

      const secret = expectSuccess(
        await call('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: created.id }),
        'Advanced webhook endpoint secret retrieved successfully.',
      ).data;
      assert.equal(secret.endpointId, created.id);
      assert.match(secret.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
      const stored = await keyed.app.dataSource.query('SELECT secret_enc FROM webhook_endpoint');
      assert.ok(
        stored.every((row: { secret_enc: string }) => !row.secret_enc.includes(secret.secret.slice(6))),
        'secrets are stored encrypted',
      );

      const updated = expectSuccess(
        await call('/v2/workspace/advancedwebhook/endpoints/update', {
          endpointId: full.id,
          description: null,
          rateLimit: null,
          disabled: false,
          filterTypes: ['comment.add'],
        }),
        'Advanced webhook endpoint updated successfully.',
      ).data;
      assert.deepEqual(
        [updated.description, updated.rateLimit, updated.disabled, updated.filterTypes, updated.uid],
        [null, null, false, ['comment.add'], 'two'],
      );
      expectError(
        await call('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: full.id }),
        400,
        'INVALID_ARGUMENT',
        'At least one endpoint field besides data.endpointId is required.',
      );
      expectError(
        await call('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: full.id, uid: 'x' }),
        400,
        'INVALID_ARGUMENT',
        'Unknown field: data.uid',
      );
      expectError(
        await call('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: 'ep_unknown', url: 'https://x.example.com' }),
        404,
        'NOT_FOUND',
        'Advanced webhook provider request failed.',
      );

      // Three more, then walk pages of two forwards and back.
      for (const n of [3, 4, 5]) expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/create', { url: `https://hooks.example.com/${n}` }));
      const page1 = expectSuccess(
        await call('/v2/workspace/advancedwebhook/endpoints/get', { limit: 2 }),
        'Advanced webhook endpoints retrieved successfully.',
      ).data;
      assert.deepEqual([page1.endpoints.length, page1.done, page1.prevIterator], [2, false, null]);
      const page2 = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/get', { limit: 2, iterator: page1.iterator })).data;
      const page3 = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/get', { limit: 2, iterator: page2.iterator })).data;
      assert.deepEqual([page3.endpoints.length, page3.done, page3.iterator], [1, true, null]);
      const urls = [...page1.endpoints, ...page2.endpoints, ...page3.endpoints].map((e: { url: string }) => e.url);
      assert.deepEqual(urls, [
        'https://hooks.example.com/one',
        'https://hooks.example.com/two',
        'https://hooks.example.com/3',
        'https://hooks.example.com/4',
        'https://hooks.example.com/5',
      ]);
      const back = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/get', { limit: 2, iterator: page3.prevIterator })).data;
      assert.deepEqual(back.endpoints, page2.endpoints);
      expectError(
        await call('/v2/workspace/advancedwebhook/endpoints/get', { limit: 251 }),
        400,
        'INVALID_ARGUMENT',
        'data.limit must be an integer between 1 and 250',
      );
      expectError(await call('/v2/workspace/advancedwebhook/endpoints/get', { iterator: 'forged' }), 400, 'INVALID_ARGUMENT', 'Invalid page token.');

      assert.deepEqual(
        expectSuccess(
          await call('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: created.id }),
          'Advanced webhook endpoint deleted successfully.',
        ).data,
        {
          endpointId: created.id,
          deleted: true,
        },
      );
      expectError(
        await call('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: created.id }),
        404,
        'NOT_FOUND',
        'Advanced webhook provider request failed.',
      );
      expectError(
        await call('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: created.id }),
        404,
        'NOT_FOUND',
        'Advanced webhook provider request failed.',
      );

      // Another key sees none of it.
      const other = await freshKey();
      expectSuccess(await other('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
      assert.deepEqual(expectSuccess(await other('/v2/workspace/advancedwebhook/endpoints/get', {})).data.endpoints, []);
      expectError(await other('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: full.id }), 404, 'NOT_FOUND');
      expectSuccess(await other('/v2/workspace/advancedwebhook/endpoints/create', { url: 'https://hooks.example.com/theirs', uid: 'two' }));
    });

    it('refuses bad endpoint fields with the field named', async () => {
      const call = await freshKey();
      expectSuccess(await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
      const refused = async (data: unknown, message: string) =>
        expectError(await call('/v2/workspace/advancedwebhook/endpoints/create', data), 400, 'INVALID_ARGUMENT', message);
      await refused({}, 'data.url must be a string');
      await refused({ url: 'mailto:a@example.com' }, 'data.url must be an http(s) URL');
      await refused({ url: 'https://x.example.com', filterTypes: [] }, 'data.filterTypes must contain at least 1 item(s)');
      await refused({ url: 'https://x.example.com', channels: [] }, 'data.channels must contain at least 1 item(s)');
      await refused({ url: 'https://x.example.com', rateLimit: 0 }, 'data.rateLimit must be an integer between 1 and 1000000');
      await refused({ url: 'https://x.example.com', metadata: { n: 1 } }, 'data.metadata.n must be a string');
      await refused({ url: 'https://x.example.com', description: null }, 'data.description must be a string');
    });

    it('turned off by the operator: every advanced operation is FAILED_PRECONDITION', async () => {
      const app = await startApp({ ADVANCED_WEBHOOKS: 'false' });
      try {
        const call = agentFor(app, await createKey(app, uniqueEmail()));
        for (const [path, data] of [
          ['/v2/workspace/advancedwebhookconfig/get', {}],
          ['/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }],
          ...endpointOps,
        ] as const) {
          expectError(await call(path, data), 400, 'FAILED_PRECONDITION', 'Advanced webhooks are not available for this workspace.');
        }
      } finally {
        await app.close();
      }
    });
  });
});
