import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { ManualClock, startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectError, expectSuccess } from './factories/workspace.js';
import { addActivities, advancedEndpoint, commentActivity, deliverySuite, type Call } from './helpers/webhooks.js';

type Message = Record<string, any>;
const DAY = 24 * 60 * 60 * 1000;

/**
 * The operations behind the console's webhook tools (issue 34): a test message, the receiver's
 * answer in the attempt log, secret rotation with an overlap window, recovery of everything
 * failed since a time, and the delivery health. Receivers are real HTTP servers; the delivery
 * clock is moved by hand.
 */
describe('webhook console operations: test message, answers, secret rotation, recover since, delivery health (issue 34)', () => {
  const clock = new ManualClock();
  let app: TestApp;
  const { receiver } = deliverySuite(async ({ database, receiver }) => {
    app = await startApp(
      {
        DATABASE_URL: database.url,
        DELIVERY_CONCURRENCY: '8',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // The third-party mail provider (the delivery health counts mail waiting for it).
        EMAIL_PROVIDER_URL: receiver.url('/console/mail'),
      },
      { clock },
    );
    return () => app.close();
  });
  const freshCall = async (): Promise<Call> => agentFor(app, await createKey(app));
  const messages = async (call: Call, data: Record<string, unknown> = {}): Promise<Message[]> =>
    expectSuccess(await call('/v2/workspace/advancedwebhook/messages/get', data)).data.messages;
  const verifies = (secret: string, hook: { body: string; headers: Record<string, unknown> }) => {
    try {
      new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  };

  it('a test message reaches the endpoint whatever its filterTypes, with the receiver’s answer in the attempt log', async () => {
    const call = await freshCall();
    const { id, secret } = await advancedEndpoint(call, receiver.url('/console/test'), { filterTypes: ['comment.add'] });
    const sent = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/test', { endpointId: id }), 'Test message sent successfully.').data;
    assert.equal(sent.endpointId, id);
    const [hook] = await receiver.waitFor('/console/test');
    assert.equal(hook!.headers['webhook-id'], sent.messageId);
    assert.ok(verifies(secret, hook!));
    assert.equal(hook!.json.event, 'webhook.test');
    assert.equal(hook!.json.data.test, true);
    let logged: Message | undefined;
    for (let i = 0; i < 200 && logged?.status !== 'succeeded'; i++) {
      [logged] = await messages(call, { endpointId: id });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(logged!.eventType, 'webhook.test');
    assert.deepEqual(
      logged!.attemptLog.map((a: Message) => [a.statusCode, a.responseBody]),
      [[200, 'ok']],
    );
    expectError(await call('/v2/workspace/advancedwebhook/endpoints/test', { endpointId: 'ep_missing' }), 404, 'NOT_FOUND');
    expectError(await call('/v2/workspace/advancedwebhook/endpoints/test', { endpointId: id, eventType: 7 }), 400, 'INVALID_ARGUMENT', /data\.eventType/);
    // Another key cannot send to it.
    const other = await freshCall();
    expectSuccess(await other('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
    expectError(await other('/v2/workspace/advancedwebhook/endpoints/test', { endpointId: id }), 404, 'NOT_FOUND');
  });

  it('rotation: both secrets verify during the overlap, only the new one after; the old one is not given out again', async () => {
    const call = await freshCall();
    const { id, secret: first } = await advancedEndpoint(call, receiver.url('/console/rotate'));
    const rotated = expectSuccess(
      await call('/v2/workspace/advancedwebhook/endpoints/secret/rotate', { endpointId: id, overlapSeconds: 3600 }),
      'Advanced webhook endpoint secret rotated successfully.',
    ).data;
    const second = rotated.secret as string;
    assert.match(second, /^whsec_/);
    assert.notEqual(second, first);
    assert.ok(Math.abs(Date.parse(rotated.previousSecretExpiresAt) - (Date.now() + 3600_000)) < 60_000);
    assert.equal(expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: id })).data.secret, second);
    expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/test', { endpointId: id }));
    const [during] = await receiver.waitFor('/console/rotate', 1);
    assert.equal(String(during!.headers['webhook-signature']).split(' ').length, 2);
    assert.ok(verifies(first, during!), 'the old secret verifies during the overlap');
    assert.ok(verifies(second, during!), 'the new secret verifies during the overlap');

    // Rotating with no overlap: the previous secret stops at once.
    const third = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/secret/rotate', { endpointId: id, overlapSeconds: 0 })).data;
    assert.equal(third.previousSecretExpiresAt, null);
    expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/test', { endpointId: id }));
    const after = (await receiver.waitFor('/console/rotate', 2))[1]!;
    assert.equal(String(after.headers['webhook-signature']).split(' ').length, 1);
    assert.ok(verifies(third.secret, after));
    assert.ok(!verifies(second, after) && !verifies(first, after), 'only the new secret verifies after the overlap');

    expectError(
      await call('/v2/workspace/advancedwebhook/endpoints/secret/rotate', { endpointId: id, overlapSeconds: -1 }),
      400,
      'INVALID_ARGUMENT',
      /data\.overlapSeconds/,
    );
    expectError(await call('/v2/workspace/advancedwebhook/endpoints/secret/rotate', { endpointId: 'ep_missing' }), 404, 'NOT_FOUND');
  });

  it('recover since: only the failed messages of the window are sent again, once each, with their webhook-id', async () => {
    const call = await freshCall();
    // 410 Gone fails a delivery for good at once (and disables the endpoint, as contract 6.3
    // says; the owner enables it again before recovering, as after fixing a receiver).
    let failing = true;
    receiver.answers.set('/console/recover', () => (failing ? { status: 410 } : { status: 204 }));
    const { id, secret } = await advancedEndpoint(call, receiver.url('/console/recover'));
    const enable = async () => expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: id, disabled: false }));
    const failedFor = async (count: number) => {
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
        const failed = await messages(call, { endpointId: id, status: 'failed' });
        if (failed.length >= count) return failed;
      }
      return messages(call, { endpointId: id, status: 'failed' });
    };
    const [before] = await addActivities(call, 'org-recover', 'doc', [commentActivity()]);
    assert.equal((await failedFor(1)).length, 1);
    await enable();
    clock.advance(DAY);
    const windowStart = new Date(clock.now()).toISOString();
    const inWindow = await addActivities(call, 'org-recover', 'doc', [commentActivity(), commentActivity('comment.update')]);
    assert.ok(before && inWindow.length === 2);
    const failed = await failedFor(3);
    assert.equal(failed.length, 3);
    await enable();
    const failedIds = new Map(failed.map((m) => [m.messageId, m.attempts]));
    const arrivedBefore = receiver.at('/console/recover').length;

    failing = false;
    // The test's clock stands still unless moved: a second passes before the recovery (whose window ends now).
    clock.advance(1000);
    const recovered = expectSuccess(
      await call('/v2/workspace/advancedwebhook/messages/recover', { endpointId: id, since: windowStart }),
      'Failed advanced webhook messages scheduled again successfully.',
    ).data;
    assert.deepEqual(recovered, { endpointId: id, recovered: 2 });
    const arrived = (await receiver.waitFor('/console/recover', arrivedBefore + 2)).slice(arrivedBefore);
    const windowIds = failed.filter((m) => m.createdAt >= windowStart).map((m) => m.messageId);
    assert.deepEqual(arrived.map((hook) => hook.headers['webhook-id']).sort(), windowIds.sort());
    for (const hook of arrived) assert.ok(verifies(secret, hook));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(receiver.at('/console/recover').length, arrivedBefore + 2, 'each sent once, the older one not at all');
    const after = await messages(call, { endpointId: id });
    for (const message of after) {
      const inside = windowIds.includes(message.messageId);
      assert.equal(message.status, inside ? 'succeeded' : 'failed');
      assert.equal(message.attempts, failedIds.get(message.messageId)! + (inside ? 1 : 0));
    }
    // Nothing failed in the window any more: a second recovery sends nothing.
    assert.equal(expectSuccess(await call('/v2/workspace/advancedwebhook/messages/recover', { endpointId: id, since: windowStart })).data.recovered, 0);

    expectError(await call('/v2/workspace/advancedwebhook/messages/recover', { endpointId: id, since: 'yesterday' }), 400, 'INVALID_ARGUMENT', /data\.since/);
    expectError(
      await call('/v2/workspace/advancedwebhook/messages/recover', { endpointId: id, since: windowStart, until: windowStart }),
      400,
      'INVALID_ARGUMENT',
      'data.until must be after data.since',
    );
    expectError(await call('/v2/workspace/advancedwebhook/messages/recover', { endpointId: 'ep_missing', since: windowStart }), 404, 'NOT_FOUND');
  });

  it('delivery health: the outbox depth by kind, the failing and disabled endpoints with their latest attempt; another key sees none of it', async () => {
    const call = await freshCall();
    const HEALTH = '/v2/workspace/advancedwebhook/health/get';
    type Health = { outbox: Record<string, number>; endpoints: Message[] };
    const health = async (as: Call = call): Promise<Health> => expectSuccess(await as(HEALTH, {}), 'Delivery health retrieved successfully.').data;
    /**
     * The health once `ready` holds (the worker writes outcomes a moment after the receiver
     * answers); `meanwhile` runs before each look again.
     */
    const healthWhen = async (ready: (seen: Health) => boolean, meanwhile = () => {}): Promise<Health> => {
      let seen = await health();
      for (const deadline = Date.now() + 10_000; !ready(seen) && Date.now() < deadline; seen = await health()) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        meanwhile();
      }
      return seen;
    };
    const zero = { waiting: 0, advancedWebhook: 0, webhook: 0, mail: 0, inbox: 0 };
    // As every advanced operation: refused until advanced webhooks are on.
    expectError(await call(HEALTH, {}), 400, 'FAILED_PRECONDITION', 'Advanced webhooks are not configured for this workspace.');

    // The failing receiver answers 503 to the first round, 502 to the retries, then recovers.
    let failing = true;
    receiver.answers.set('/console/health/failing', (_hook, nth) => (!failing ? { status: 204 } : { status: nth <= 2 ? 503 : 502 }));
    receiver.answers.set('/console/health/gone', { status: 410 });
    receiver.answers.set('/console/health/raw', () => (failing ? { status: 500 } : { status: 204 }));
    receiver.answers.set('/console/mail', () => (failing ? { status: 503 } : { status: 202 }));
    const broken = await advancedEndpoint(call, receiver.url('/console/health/failing'));
    await advancedEndpoint(call, receiver.url('/console/health/ok'));
    const gone = await advancedEndpoint(call, receiver.url('/console/health/gone'));
    const off = await advancedEndpoint(call, receiver.url('/console/health/off'), { disabled: true });
    assert.deepEqual(await health(), { outbox: zero, endpoints: [endpointHealth(off.id, receiver.url('/console/health/off'), { disabled: true })] });
    // A basic webhook URL and a third-party mail provider that fail too.
    expectSuccess(
      await call('/v2/workspace/webhookconfig/update', {
        useWebhookService: true,
        webhookServiceConfig: { rawNotificationUrl: receiver.url('/console/health/raw') },
      }),
    );
    expectSuccess(await call('/v2/workspace/emailconfig/update', { useEmailService: true, emailServiceConfig: { type: 'sendgrid', apiKey: 'SG.health' } }));
    expectSuccess(await call('/v2/users/add', { organizationId: 'org-health', users: [{ userId: 'bob', name: 'Bob', email: 'bob@example.com' }] }));
    const mention = {
      entityTargetData: { commentText: 'hi @Bob', taggedUserContacts: [{ userId: 'bob', contact: { userId: 'bob', email: 'bob@example.com' } }] },
    };
    await addActivities(call, 'org-health', 'doc', [commentActivity('comment.add', 'ana', mention), commentActivity('comment.update')]);

    // Two events: each to the three enabled endpoints and the raw URL; bob is mailed of the mention.
    const firstRound = clock.now();
    const failingEndpoint = (statusCode: number, at: number, waiting: number) =>
      endpointHealth(broken.id, receiver.url('/console/health/failing'), {
        failingSince: firstRound,
        lastAttemptAt: at,
        lastStatusCode: statusCode,
        lastError: `The receiver answered HTTP ${statusCode}.`,
        waiting,
      });
    const expected: Health = {
      outbox: { waiting: 5, advancedWebhook: 2, webhook: 2, mail: 1, inbox: 0 },
      endpoints: [
        failingEndpoint(503, firstRound, 2),
        // 410 Gone fails the delivery for good and disables the endpoint at once.
        endpointHealth(gone.id, receiver.url('/console/health/gone'), {
          disabled: true,
          failingSince: firstRound,
          lastAttemptAt: firstRound,
          lastStatusCode: 410,
          lastError: 'The receiver answered 410 Gone.',
        }),
        endpointHealth(off.id, receiver.url('/console/health/off'), { disabled: true }),
      ],
    };
    const arrived = () =>
      receiver.at('/console/health/failing').length >= 2 && receiver.at('/console/health/raw').length >= 2 && receiver.at('/console/mail').length >= 1;
    const seen = await healthWhen((h) => arrived() && isDeepStrictEqual(h, expected));
    assert.deepEqual(seen, expected);
    assert.equal(receiver.at('/console/health/ok').length, 2, 'the healthy endpoint got both events (and is not listed)');

    // Another key sees none of it, even with advanced webhooks on and an endpoint of its own.
    const other = await freshCall();
    const own = await advancedEndpoint(other, receiver.url('/console/health/other'), { disabled: true });
    assert.deepEqual(await health(other), { outbox: zero, endpoints: [endpointHealth(own.id, receiver.url('/console/health/other'), { disabled: true })] });
    assert.deepEqual((await health()).outbox, expected.outbox, 'the first key still sees its own');

    // The retries fail differently: the latest attempt is shown, the streak keeps its start.
    clock.advance(10_000);
    const secondRound = clock.now();
    const retried = await healthWhen((h) => h.endpoints[0]?.lastStatusCode === 502 && receiver.at('/console/health/failing').length >= 4);
    assert.deepEqual(retried, { ...expected, endpoints: [failingEndpoint(502, secondRound, 2), ...expected.endpoints.slice(1)] });

    // Everything recovers: nothing waits any more, and the recovered endpoint is no longer listed.
    // A retry of the second round may fail just before this and have its outcome written just
    // after the clock moves, due an hour later than the others: the clock keeps moving while
    // the test waits, so every retry comes due whenever its failure was written.
    failing = false;
    const anHour = () => clock.advance(60 * 60 * 1000);
    anHour();
    const drained = await healthWhen((h) => h.outbox.waiting === 0 && h.endpoints.length === 2, anHour);
    assert.deepEqual(drained, { outbox: zero, endpoints: expected.endpoints.slice(1) });
  });
});

/** An endpoint as the delivery health lists it: enabled, not failing, never attempted, nothing waiting, unless `fields` say otherwise. */
function endpointHealth(id: string, url: string, fields: Record<string, unknown>): Message {
  return {
    id,
    url,
    disabled: false,
    failingSince: null,
    lastAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    waiting: 0,
    ...fields,
  };
}
