import assert from 'node:assert/strict';
import { constants, createDecipheriv, generateKeyPairSync, privateDecrypt } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { defaultTriggers } from '../src/common/event-catalogue.js';
import { startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';
import { addActivities, advancedEndpoint, commentActivity, deliverySuite, waitForStatus, type Call } from './helpers/webhooks.js';

const user = (userId: string, extra: Record<string, unknown> = {}) => ({ userId, ...extra });
const comment = commentActivity;

describe('webhook delivery (contract 6.3)', () => {
  let app: TestApp;
  let key: TestKey;
  let call: Call;
  const { receiver } = deliverySuite(async ({ database }) => {
    app = await startApp({ DATABASE_URL: database.url, DELIVERY_CONCURRENCY: '8', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    key = await createKey(app);
    call = agentFor(app, key);
    return () => app.close();
  });

  describe('advanced webhooks', () => {
    it('signs every delivery so that standardwebhooks verifies it, with the documented body', async () => {
      const { id, secret } = await advancedEndpoint(call, receiver.url('/adv/signed'));
      const [activityId] = await addActivities(call, 'org-adv', 'doc-1', [comment('comment.add', 'ana', { targetEntityId: 'annotation-1' })]);
      const [hook] = await receiver.waitFor('/adv/signed');
      const verified = new Webhook(secret).verify(hook!.body, hook!.headers as Record<string, string>) as Record<string, any>;
      assert.equal(hook!.headers['content-type'], 'application/json');
      assert.match(String(hook!.headers['webhook-id']), /^msg_/);
      assert.deepEqual(Object.keys(verified).sort(), ['actionType', 'data', 'event', 'platform', 'source', 'webhookId']);
      assert.equal(verified.webhookId, hook!.headers['webhook-id']);
      assert.equal(verified.event, 'comment.add');
      assert.equal(verified.actionType, 'comment.add');
      assert.equal(verified.source, 'comment');
      assert.equal(verified.platform, 'sdk');
      assert.equal(verified.data.id, activityId);
      assert.equal(verified.data.targetEntityId, 'annotation-1');
      assert.deepEqual(verified.data.metadata, { apiKey: key.apiKey, organizationId: 'org-adv', documentId: 'doc-1' });
      // A tampered body or another endpoint's secret does not verify.
      assert.throws(() => new Webhook(secret).verify(hook!.body.replace('comment.add', 'comment.del'), hook!.headers as Record<string, string>));
      const other = await advancedEndpoint(call, receiver.url('/adv/other'));
      assert.throws(() => new Webhook(other.secret).verify(hook!.body, hook!.headers as Record<string, string>));
      expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: other.id }));
      expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: id }));
    });

    it('sends each endpoint the events its filterTypes name; one without filterTypes gets every event, custom ones too', async () => {
      const filtered = await advancedEndpoint(call, receiver.url('/adv/filtered'), { filterTypes: ['comment.add', 'crdt.update_data'] });
      const all = await advancedEndpoint(call, receiver.url('/adv/all'));
      await addActivities(call, 'org-filter', 'doc', [
        comment('reaction.add'),
        { featureType: 'custom', actionType: 'invoice.paid', actionUser: user('ana'), targetEntityId: 'inv-1' },
        comment('comment.add'),
      ]);
      expectSuccess(
        await call('/v2/crdt/add', { organizationId: 'org-filter', documentId: 'doc', editorId: 'e1', type: 'text', data: 'hello', userId: 'ana' }),
      );
      const everything = await receiver.waitFor('/adv/all', 4);
      assert.deepEqual(everything.map((hook) => hook.json.event).sort(), ['comment.add', 'crdt.update_data', 'invoice.paid', 'reaction.add']);
      const named = await receiver.waitFor('/adv/filtered', 2);
      assert.deepEqual(named.map((hook) => hook.json.event).sort(), ['comment.add', 'crdt.update_data']);
      const crdt = named.find((hook) => hook.json.event === 'crdt.update_data')!.json;
      assert.equal(crdt.source, 'crdt');
      assert.equal(crdt.data.id, 'e1');
      assert.equal(crdt.data.data, 'hello');
      assert.equal(crdt.data.lastUpdatedBy, 'ana');
      // Every event reached `all`, so a wrongly routed one would have reached `filtered` by now.
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(receiver.at('/adv/filtered').length, 2);
      for (const endpoint of [filtered, all]) expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: endpoint.id }));
    });

    it('an activity added again with its id is one event: the webhook-id stays the same', async () => {
      const endpoint = await advancedEndpoint(call, receiver.url('/adv/idempotent'));
      await addActivities(call, 'org-idem', 'doc', [{ id: 'same-id', ...comment('comment.add') }]);
      await addActivities(call, 'org-idem', 'doc', [
        { id: 'same-id', ...comment('comment.add') },
        { id: 'second', ...comment('comment.add') },
      ]);
      const hooks = await receiver.waitFor('/adv/idempotent', 2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(
        receiver
          .at('/adv/idempotent')
          .map((hook) => hook.json.data.id)
          .sort(),
        ['same-id', 'second'],
      );
      assert.notEqual(hooks[0]!.headers['webhook-id'], hooks[1]!.headers['webhook-id']);
      expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: endpoint.id }));
    });

    it('paces an endpoint with a rateLimit to that many deliveries a second', async () => {
      const paced = await advancedEndpoint(call, receiver.url('/adv/paced'), { rateLimit: 2 });
      await addActivities(
        call,
        'org-paced',
        'doc',
        Array.from({ length: 6 }, () => comment('comment.add')),
      );
      const hooks = await receiver.waitFor('/adv/paced', 6);
      // Two at once (a second's worth), then one every 500 ms.
      const span = hooks[5]!.at - hooks[0]!.at;
      assert.ok(span >= 1800 && span < 4000, `6 deliveries at 2/s arrived over ${span} ms`);
      expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: paced.id }));
    });

    it('sends nothing to disabled endpoints, nor while advanced webhooks are switched off', async () => {
      const off = await advancedEndpoint(call, receiver.url('/adv/disabled'), { disabled: true });
      const on = await advancedEndpoint(call, receiver.url('/adv/enabled'));
      await addActivities(call, 'org-off', 'doc', [comment('comment.add')]);
      await receiver.waitFor('/adv/enabled', 1);
      expectSuccess(await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: false }));
      await addActivities(call, 'org-off', 'doc', [comment('comment.update')]);
      expectSuccess(await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
      await addActivities(call, 'org-off', 'doc', [comment('comment.delete')]);
      const hooks = await receiver.waitFor('/adv/enabled', 2);
      assert.deepEqual(
        hooks.map((hook) => hook.json.event),
        ['comment.add', 'comment.delete'],
      );
      assert.equal(receiver.at('/adv/disabled').length, 0);
      for (const endpoint of [off, on]) expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: endpoint.id }));
    });
  });

  describe('basic webhooks', () => {
    it('posts the raw payload, and the processed one with the users whose preferences select the event, with the auth token', async () => {
      const basicKey = await createKey(app);
      const basic = agentFor(app, basicKey);
      expectSuccess(
        await basic('/v2/workspace/webhookconfig/update', {
          useWebhookService: true,
          webhookServiceConfig: {
            authToken: 'hook-secret',
            rawNotificationUrl: receiver.url('/basic/raw'),
            processedNotificationUrl: receiver.url('/basic/processed'),
          },
        }),
      );
      // Organization users: ana acts, bob is mentioned, cara hears of everything, dan of nothing;
      // eve sees only another document; fay was never added anywhere.
      expectSuccess(
        await basic('/v2/users/add', {
          organizationId: 'org-basic',
          users: [
            { userId: 'ana', name: 'Ana', email: 'ana@example.com' },
            { userId: 'bob', name: 'Bob', email: 'bob@example.com' },
            { userId: 'cara', name: 'Cara', email: 'cara@example.com' },
            { userId: 'dan', name: 'Dan', email: 'dan@example.com' },
          ],
        }),
      );
      expectSuccess(await basic('/v2/users/add', { organizationId: 'org-basic', documentId: 'other-doc', users: [{ userId: 'eve', name: 'Eve' }] }));
      expectSuccess(await basic('/v2/workspace/notificationconfig/update', { useNotificationService: true }));
      expectSuccess(await basic('/v2/notifications/config/set', { organizationId: 'org-basic', userIds: ['cara'], config: { inbox: 'ALL', email: 'ALL' } }));
      expectSuccess(
        await basic('/v2/notifications/config/set', {
          organizationId: 'org-basic',
          userIds: ['dan'],
          documentIds: ['doc'],
          config: { inbox: 'NONE', email: 'NONE', chat: 'NONE' },
        }),
      );
      expectSuccess(await basic('/v2/notifications/config/set', { organizationId: 'org-basic', userIds: ['bob'], config: { inbox: 'MINE', email: 'MINE' } }));
      const [activityId] = await addActivities(basic, 'org-basic', 'doc', [
        comment('comment.add', 'ana', {
          entityTargetData: { commentText: '@Bob look', taggedUserContacts: [{ userId: 'bob', contact: { userId: 'bob', email: 'bob@example.com' } }] },
        }),
      ]);
      const [raw] = await receiver.waitFor('/basic/raw');
      const [processed] = await receiver.waitFor('/basic/processed');
      for (const hook of [raw!, processed!]) {
        assert.equal(hook.headers.authorization, 'Basic hook-secret');
        assert.equal(hook.json.webhookId, raw!.json.webhookId);
        assert.equal(hook.json.actionType, 'comment.add');
        assert.equal(hook.json.notificationSource, 'comment');
        assert.equal(hook.json.platform, 'sdk');
        assert.deepEqual(hook.json.actionUser, { userId: 'ana', name: 'Ana', email: 'ana@example.com' });
        assert.deepEqual(hook.json.metadata, { apiKey: basicKey.apiKey, organizationId: 'org-basic', documentId: 'doc' });
        assert.equal(hook.json.activity.id, activityId);
      }
      assert.equal(raw!.json.notifyUsers, undefined);
      // bob: mentioned (MINE); cara: ALL; ana acted; dan chose NONE here; eve cannot see the document.
      assert.deepEqual(processed!.json.notifyUsers, [
        { userId: 'bob', name: 'Bob', email: 'bob@example.com', channels: ['inbox', 'email'] },
        { userId: 'cara', name: 'Cara', email: 'cara@example.com', channels: ['inbox', 'email'] },
      ]);
    });

    it('sends only events whose trigger is on, and nothing once the service is off', async () => {
      const basic = agentFor(app, await createKey(app));
      expectSuccess(
        await basic('/v2/workspace/webhookconfig/update', {
          useWebhookService: true,
          webhookServiceConfig: { rawNotificationUrl: receiver.url('/basic/triggers'), triggers: { 'comment.update': false } },
        }),
      );
      assert.equal(defaultTriggers()['crdt.update_data'], false);
      await addActivities(basic, 'org-trig', 'doc', [
        comment('comment.update'),
        comment('comment_annotation.suggestion_accept'),
        { featureType: 'custom', actionType: 'custom.thing', actionUser: user('ana'), targetEntityId: 'x' },
      ]);
      expectSuccess(await basic('/v2/crdt/add', { organizationId: 'org-trig', documentId: 'doc', editorId: 'e', type: 'text', data: 'x' }));
      await addActivities(basic, 'org-trig', 'doc', [comment('comment.add')]);
      const [hook] = await receiver.waitFor('/basic/triggers');
      assert.equal(hook!.json.actionType, 'comment.add');
      assert.equal(hook!.headers.authorization, undefined);
      expectSuccess(await basic('/v2/workspace/webhookconfig/update', { useWebhookService: false }));
      await addActivities(basic, 'org-trig', 'doc', [comment('comment.add')]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(receiver.at('/basic/triggers').length, 1);
    });
  });

  describe('payload options', () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const publicKeyBase64 = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');

    it('encrypts with AES-256-CBC under a key wrapped with RSA-OAEP SHA-256, and still signs the body sent', async () => {
      const own = agentFor(app, await createKey(app));
      const { secret } = await advancedEndpoint(own, receiver.url('/opt/encrypted'));
      expectSuccess(await own('/v2/workspace/advancedwebhookconfig/update', { encryptData: true, publicKey: publicKeyBase64 }));
      await addActivities(own, 'org-enc', 'doc', [comment('comment.add')]);
      const [hook] = await receiver.waitFor('/opt/encrypted');
      const sealed = new Webhook(secret).verify(hook!.body, hook!.headers as Record<string, string>) as {
        encryptedData: string;
        encryptedKey: string;
        iv: string;
      };
      assert.deepEqual(Object.keys(sealed).sort(), ['encryptedData', 'encryptedKey', 'iv']);
      const aesKey = privateDecrypt(
        { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
        Buffer.from(sealed.encryptedKey, 'base64'),
      );
      assert.equal(aesKey.length, 32);
      const decipher = createDecipheriv('aes-256-cbc', aesKey, Buffer.from(sealed.iv, 'base64'));
      const payload = JSON.parse(Buffer.concat([decipher.update(Buffer.from(sealed.encryptedData, 'base64')), decipher.final()]).toString('utf8'));
      assert.equal(payload.event, 'comment.add');
      assert.equal(payload.webhookId, hook!.headers['webhook-id']);
    });

    it('base64-encodes the payload, and data protection removes e-mail addresses and names but keeps user ids', async () => {
      const own = agentFor(app, await createKey(app));
      expectSuccess(
        await own('/v2/workspace/webhookconfig/update', {
          useWebhookService: true,
          webhookServiceConfig: { rawNotificationUrl: receiver.url('/opt/encoded'), encodeData: true, enableDataProtection: true },
        }),
      );
      await addActivities(own, 'org-enc', 'doc', [
        comment('comment.add', 'ana', { entityData: { from: { userId: 'bob', name: 'Bob', email: 'bob@example.com' }, commentText: 'kept' } }),
      ]);
      const [hook] = await receiver.waitFor('/opt/encoded');
      assert.deepEqual(Object.keys(hook!.json), ['encodedPayload']);
      const payload = JSON.parse(Buffer.from(hook!.json.encodedPayload, 'base64').toString('utf8'));
      assert.deepEqual(payload.actionUser, { userId: 'ana' });
      assert.deepEqual(payload.activity.entityData, { from: { userId: 'bob' }, commentText: 'kept' });
      assert.doesNotMatch(JSON.stringify(payload), /example\.com|"Ana"|"Bob"/);
    });
  });

  it("a second key sees none of the first key's messages", async () => {
    const own = agentFor(app, await createKey(app));
    await advancedEndpoint(own, receiver.url('/iso/mine'));
    await addActivities(own, 'org-iso', 'doc', [comment('comment.add')]);
    const [hook] = await receiver.waitFor('/iso/mine');
    const messageId = String(hook!.headers['webhook-id']);
    await waitForStatus(own, messageId, 'succeeded');
    const stranger = agentFor(app, await createKey(app));
    await advancedEndpoint(stranger, receiver.url('/iso/stranger'));
    assert.deepEqual(expectSuccess(await stranger('/v2/workspace/advancedwebhook/messages/get', {})).data.messages, []);
    expectError(await stranger('/v2/workspace/advancedwebhook/messages/retry', { messageId }), 404, 'NOT_FOUND');
    assert.equal(expectSuccess(await own('/v2/workspace/advancedwebhook/messages/get', {})).data.messages.length, 1);
  });
});
