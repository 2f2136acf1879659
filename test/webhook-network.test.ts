import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DeliveryWorker } from '../src/delivery/delivery-worker.js';
import { startApp, type TestApp } from './helpers/app.js';
import { freePort } from './helpers/service-process.js';
import { addActivities, advancedEndpoint, commentActivity, deliverySuite, type Call } from './helpers/webhooks.js';
import { agentFor, createKey, expectSuccess } from './factories/workspace.js';

type Message = Record<string, any>;

/**
 * Waits until the endpoint's newest message has settled its first attempt. A hanging endpoint
 * runs two attempts at a time, 400 ms each, behind its older messages and their retries: on a
 * loaded CI machine its newest message can wait well over 10 s (timing is asserted separately).
 */
async function firstAttempt(call: Call, endpointId: string): Promise<Message> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [message] = expectSuccess(await call('/v2/workspace/advancedwebhook/messages/get', { endpointId })).data.messages as Message[];
    if (message?.attemptLog.length) return message;
    if (Date.now() > deadline) throw new Error(`no attempt to ${endpointId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('webhooks and the network (contract 6.3)', () => {
  const suite = deliverySuite();
  const { receiver } = suite;

  describe('SSRF guard (WEBHOOK_ALLOW_PRIVATE_NETWORKS unset)', () => {
    let app: TestApp;
    before(async () => (app = await startApp({ DATABASE_URL: suite.database.url, DELIVERY_CONCURRENCY: '4' })));
    after(() => app.close());

    it('refuses loopback and private addresses, literal or resolved, before connecting', async () => {
      const key = await createKey(app);
      const call = agentFor(app, key);
      const literal = await advancedEndpoint(call, receiver.url('/ssrf/literal'));
      const named = await advancedEndpoint(call, `http://localhost:${receiver.port}/ssrf/named`);
      const metadata = await advancedEndpoint(call, 'http://169.254.169.254/latest/meta-data');
      expectSuccess(
        await call('/v2/workspace/webhookconfig/update', { useWebhookService: true, webhookServiceConfig: { rawNotificationUrl: 'http://[::1]:9/raw' } }),
      );
      await addActivities(call, 'org-ssrf', 'doc', [commentActivity()]);
      assert.match((await firstAttempt(call, literal.id)).lastError, /^Refused: 127\.0\.0\.1 is a loopback address/);
      assert.match((await firstAttempt(call, named.id)).lastError, /^Refused: localhost resolves to no public address: .* is a loopback address/);
      assert.match((await firstAttempt(call, metadata.id)).lastError, /^Refused: 169\.254\.169\.254 is a linkLocal address/);
      const deadline = Date.now() + 10_000;
      let basic: { last_error: string } | undefined;
      while (!basic?.last_error) {
        assert.ok(Date.now() < deadline, 'no basic attempt');
        [basic] = await app.dataSource.query(`SELECT last_error FROM outbox_delivery WHERE api_key_id = '${key.apiKey}' AND channel = 'webhook'`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.match(basic.last_error, /^Refused: ::1 is a loopback address/);
      assert.equal(receiver.received.filter((hook) => hook.path.startsWith('/ssrf/')).length, 0);
    });
  });

  describe('receivers that hang, are slow, fail or are not there', () => {
    let app: TestApp;
    before(
      async () =>
        (app = await startApp({
          DATABASE_URL: suite.database.url,
          DELIVERY_CONCURRENCY: '32',
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOK_TIMEOUT_MS: '400',
        })),
    );
    after(() => app.close());

    it('never hold back other endpoints, nor the API write that caused the event', async () => {
      const call = agentFor(app, await createKey(app));
      receiver.answers.set('/net/hang', 'hang');
      receiver.answers.set('/net/slow', { delayMs: 1500 });
      receiver.answers.set('/net/error', { status: 500 });
      const hang = await advancedEndpoint(call, receiver.url('/net/hang'));
      const slow = await advancedEndpoint(call, receiver.url('/net/slow'));
      const error = await advancedEndpoint(call, receiver.url('/net/error'));
      const absent = await advancedEndpoint(call, `http://127.0.0.1:${await freePort()}/nobody`);
      await advancedEndpoint(call, receiver.url('/net/good'));
      const started = Date.now();
      const slowest = { ms: 0 };
      for (let i = 0; i < 20; i++) {
        const before = Date.now();
        await addActivities(call, 'org-net', 'doc', [commentActivity()]);
        slowest.ms = Math.max(slowest.ms, Date.now() - before);
      }
      await receiver.waitFor('/net/good', 20, 5000);
      // An endpoint that hangs runs two attempts at a time once it is known to be slow: its 20
      // events take many rounds of 400 ms; the good endpoint had all of its own well before.
      assert.ok(Date.now() - started < 3000, `good endpoint took ${Date.now() - started} ms`);
      assert.ok(slowest.ms < 1000, `an API write took ${slowest.ms} ms`);
      assert.match((await firstAttempt(call, hang.id)).lastError, /^No answer within 400 ms/);
      assert.match((await firstAttempt(call, slow.id)).lastError, /^No answer within 400 ms/);
      assert.equal((await firstAttempt(call, error.id)).lastStatusCode, 500);
      assert.match((await firstAttempt(call, absent.id)).lastError, /ECONNREFUSED/);
      for (const endpoint of [hang, slow, error, absent]) assert.equal((await firstAttempt(call, endpoint.id)).status, 'pending');
      // A slow route holds a batch waiting behind the one running: it starts a whole attempt
      // after its claim, within its lease, and is never handed back to be claimed again.
      assert.equal(app.app.get(DeliveryWorker).counts.handedBack, 0);
    });
  });
});
