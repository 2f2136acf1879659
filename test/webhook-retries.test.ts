import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { DeliveryWorker } from '../src/delivery/delivery-worker.js';
import { ADVANCED_RETRY_DELAYS_MS, BASIC_RETRY_DELAYS_MS } from '../src/delivery/retry-schedule.js';
import { ManualClock, startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';
import { addActivities, advancedEndpoint, deliverySuite, type Call } from './helpers/webhooks.js';
import { planOf, statementOf } from './helpers/query-plan.js';

type Message = Record<string, any>;

const DAY = 24 * 60 * 60 * 1000;
const comment = (actionType = 'comment.add') => ({ featureType: 'comment', actionType, actionUser: { userId: 'ana' } });

/**
 * Retry, disable and replay rules (contract 6.3) with a clock the test moves: the schedule's
 * hours pass in milliseconds. Receivers are real HTTP servers.
 */
describe('webhook retries, disabling and the message log (contract 6.3)', () => {
  const clock = new ManualClock();
  let app: TestApp;
  let worker: DeliveryWorker;
  const { receiver } = deliverySuite(async ({ database }) => {
    app = await startApp({ DATABASE_URL: database.url, DELIVERY_CONCURRENCY: '8', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, { clock });
    worker = app.app.get(DeliveryWorker);
    return () => app.close();
  });

  const freshCall = async (): Promise<Call> => agentFor(app, await createKey(app));
  const freshKey = async (): Promise<{ key: TestKey; call: Call }> => {
    const key = await createKey(app);
    return { key, call: agentFor(app, key) };
  };
  const messages = async (call: Call, data: Record<string, unknown> = {}): Promise<Message[]> =>
    expectSuccess(await call('/v2/workspace/advancedwebhook/messages/get', data)).data.messages;

  /** Waits until the endpoint's only message has made `attempts` attempts and settled them. */
  async function settled(call: Call, endpointId: string, attempts: number): Promise<Message> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [message] = await messages(call, { endpointId });
      // A pending delivery without a due time is being attempted right now.
      if (
        message &&
        message.attempts === attempts &&
        message.attemptLog.length === attempts &&
        !(message.status === 'pending' && message.nextAttemptAt === null)
      )
        return message;
      if (Date.now() > deadline) throw new Error(`no settled attempt ${attempts}: ${JSON.stringify(message)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Moves the clock past the next due time and lets the worker look. */
  function passTime(ms: number): void {
    clock.advance(ms);
    worker.wake();
  }

  it('retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (±20%), with the same webhook-id, then fails', async () => {
    const call = await freshCall();
    receiver.answers.set('/retry/always-500', { status: 500 });
    const { id } = await advancedEndpoint(call, receiver.url('/retry/always-500'));
    await addActivities(call, 'org-retry', 'doc', [comment()]);
    for (let attempt = 1; attempt <= ADVANCED_RETRY_DELAYS_MS.length; attempt++) {
      const message = await settled(call, id, attempt);
      assert.equal(message.status, 'pending');
      assert.equal(message.lastStatusCode, 500);
      assert.equal(message.lastError, 'The receiver answered HTTP 500.');
      const last = message.attemptLog[attempt - 1];
      const waited = Date.parse(last.nextAttemptAt) - Date.parse(last.timestamp);
      const scheduled = ADVANCED_RETRY_DELAYS_MS[attempt - 1]!;
      assert.ok(waited >= scheduled * 0.8 - 1 && waited <= scheduled * 1.2 + 1, `attempt ${attempt}: waited ${waited} ms for ${scheduled}`);
      // A millisecond before it is due, nothing happens; then it goes.
      passTime(Date.parse(message.nextAttemptAt) - clock.now() - 1);
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.equal(receiver.at('/retry/always-500').length, attempt);
      passTime(1);
      await receiver.waitFor('/retry/always-500', attempt + 1);
    }
    const final = await settled(call, id, 8);
    assert.equal(final.status, 'failed');
    assert.equal(final.nextAttemptAt, null);
    assert.equal(final.attemptLog.at(-1).nextAttemptAt, null);
    passTime(DAY);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const hooks = receiver.at('/retry/always-500');
    assert.equal(hooks.length, 8);
    assert.equal(new Set(hooks.map((hook) => hook.headers['webhook-id'])).size, 1);
    assert.equal(hooks[0]!.headers['webhook-id'], final.messageId);
  });

  it('basic webhooks retry three times only', async () => {
    const { key, call } = await freshKey();
    receiver.answers.set('/retry/basic', { status: 502 });
    expectSuccess(
      await call('/v2/workspace/webhookconfig/update', { useWebhookService: true, webhookServiceConfig: { rawNotificationUrl: receiver.url('/retry/basic') } }),
    );
    await addActivities(call, 'org-basic-retry', 'doc', [comment()]);
    for (let attempt = 1; attempt <= BASIC_RETRY_DELAYS_MS.length + 1; attempt++) {
      await receiver.waitFor('/retry/basic', attempt);
      await waitForRow(app, `api_key_id = '${key.apiKey}' AND attempts = ${attempt} AND lease_token IS NULL`);
      // Past the latest the jittered wait can be.
      passTime(Math.ceil((BASIC_RETRY_DELAYS_MS[attempt - 1] ?? DAY) * 1.2) + 1);
    }
    passTime(DAY);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(receiver.at('/retry/basic').length, 4);
    const [row] = await app.dataSource.query(`SELECT status, attempts FROM outbox_delivery WHERE api_key_id = '${key.apiKey}'`);
    assert.equal(row.status, 'failed');
    assert.equal(Number(row.attempts), 4);
  });

  it('lets Retry-After lengthen the wait up to twice the scheduled one', async () => {
    const call = await freshCall();
    receiver.answers.set('/retry/after-8', { status: 503, headers: { 'retry-after': '8' } });
    receiver.answers.set('/retry/after-hour', { status: 429, headers: { 'retry-after': '3600' } });
    receiver.answers.set('/retry/after-0', { status: 429, headers: { 'retry-after': '0' } });
    const longer = await advancedEndpoint(call, receiver.url('/retry/after-8'));
    const capped = await advancedEndpoint(call, receiver.url('/retry/after-hour'));
    const sooner = await advancedEndpoint(call, receiver.url('/retry/after-0'));
    await addActivities(call, 'org-after', 'doc', [comment()]);
    const waited = async (endpointId: string) => {
      const message = await settled(call, endpointId, 1);
      return Date.parse(message.nextAttemptAt) - Date.parse(message.attemptLog[0].timestamp);
    };
    assert.equal(await waited(longer.id), 8000);
    assert.equal(await waited(capped.id), 10_000);
    const scheduled = await waited(sooner.id);
    assert.ok(scheduled >= 4000 && scheduled <= 6000, `Retry-After: 0 waited ${scheduled} ms, not the schedule's 5 s ±20%`);
  });

  it('a redirect is a failure and is not followed', async () => {
    const call = await freshCall();
    receiver.answers.set('/retry/moved', { status: 302, headers: { location: receiver.url('/retry/moved-here') } });
    const { id } = await advancedEndpoint(call, receiver.url('/retry/moved'));
    await addActivities(call, 'org-redirect', 'doc', [comment()]);
    const message = await settled(call, id, 1);
    assert.equal(message.status, 'pending');
    assert.equal(message.lastStatusCode, 302);
    assert.equal(message.lastError, 'Redirects are not followed (HTTP 302).');
    assert.equal(receiver.at('/retry/moved-here').length, 0);
  });

  it('410 Gone disables the endpoint at once; later events are not sent to it', async () => {
    const call = await freshCall();
    receiver.answers.set('/retry/gone', { status: 410 });
    const { id } = await advancedEndpoint(call, receiver.url('/retry/gone'));
    await addActivities(call, 'org-gone', 'doc', [comment()]);
    const message = await settled(call, id, 1);
    assert.equal(message.status, 'failed');
    assert.equal(message.lastStatusCode, 410);
    const [endpoint] = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/get', {})).data.endpoints;
    assert.equal(endpoint.disabled, true);
    await addActivities(call, 'org-gone', 'doc', [comment()]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(receiver.at('/retry/gone').length, 1);
    assert.equal((await messages(call)).length, 1);
  });

  it('an endpoint failing without a success for 5 days is disabled; a success resets the count', async () => {
    const call = await freshCall();
    let healthy = false;
    receiver.answers.set('/retry/flaky', () => ({ status: healthy ? 200 : 500 }));
    const { id } = await advancedEndpoint(call, receiver.url('/retry/flaky'));
    const endpointDisabled = async () => expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/get', {})).data.endpoints[0].disabled as boolean;

    // Fails now; a success four days later; another failure five days after the first: still on.
    await addActivities(call, 'org-flaky', 'doc', [comment()]);
    await settled(call, id, 1);
    passTime(4 * DAY);
    healthy = true;
    await settled(call, id, 2);
    healthy = false;
    passTime(DAY + 1000);
    await addActivities(call, 'org-flaky', 'doc', [comment('comment.update')]);
    await receiver.waitFor('/retry/flaky', 3);
    await waitForRow(app, `target = '${id}' AND attempts = 1 AND status = 'pending' AND lease_token IS NULL`);
    assert.equal(await endpointDisabled(), false);

    // Five days of failures since then: the next failure disables it.
    passTime(5 * DAY);
    await addActivities(call, 'org-flaky', 'doc', [comment('comment.delete')]);
    const deadline = Date.now() + 10_000;
    while (!(await endpointDisabled())) {
      assert.ok(Date.now() < deadline, 'endpoint not disabled');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('deleting an endpoint stops its deliveries at once, retries included', async () => {
    const call = await freshCall();
    receiver.answers.set('/retry/deleted', { status: 500 });
    const { id } = await advancedEndpoint(call, receiver.url('/retry/deleted'));
    await addActivities(call, 'org-deleted', 'doc', [comment()]);
    await settled(call, id, 1);
    expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: id }));
    passTime(DAY);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(receiver.at('/retry/deleted').length, 1);
    const [message] = await messages(call, { endpointId: id });
    assert.equal(message!.status, 'cancelled');
    assert.equal(message!.lastError, 'The endpoint was deleted.');
  });

  it('deletes settled messages with their attempts after DELIVERY_RETENTION_DAYS (30); those still pending stay', async () => {
    const { key, call } = await freshKey();
    receiver.answers.set('/retention/failing', { status: 500 });
    const ok = await advancedEndpoint(call, receiver.url('/retention/ok'), { filterTypes: ['comment.add'] });
    const failing = await advancedEndpoint(call, receiver.url('/retention/failing'), { filterTypes: ['comment.update'] });
    await addActivities(call, 'org-retention', 'doc', [comment('comment.add'), comment('comment.update')]);
    assert.equal((await settled(call, ok.id, 1)).status, 'succeeded');
    assert.equal((await settled(call, failing.id, 1)).status, 'pending');
    const count = async (sql: string) => Number((await app.dataSource.query(sql))[0].n);
    // Messages and deliveries of this key, and attempts whose delivery is gone (none may be).
    const stored = async () => [
      await count(`SELECT count(*) AS n FROM outbox_message WHERE api_key_id = '${key.apiKey}'`),
      await count(`SELECT count(*) AS n FROM outbox_delivery WHERE api_key_id = '${key.apiKey}'`),
      await count('SELECT count(*) AS n FROM delivery_attempt WHERE delivery_id NOT IN (SELECT id FROM outbox_delivery)'),
    ];
    assert.deepEqual(await stored(), [2, 2, 0]);
    clock.advance(29 * DAY);
    await worker.prune();
    assert.equal((await messages(call)).length, 2, 'kept within the retention');
    clock.advance(2 * DAY);
    await worker.prune();
    const left = await messages(call);
    assert.deepEqual(
      left.map((m) => [m.endpointId, m.status]),
      [[failing.id, 'pending']],
    );
    assert.deepEqual(await stored(), [1, 1, 0]);
  });

  describe('message log and replay', () => {
    let call: Call;
    let endpointA: string;
    let endpointB: string;

    before(async () => {
      call = await freshCall();
      receiver.answers.set('/log/b', (_hook, nth) => ({ status: nth === 1 ? 500 : 200 }));
      endpointA = (await advancedEndpoint(call, receiver.url('/log/a'))).id;
      endpointB = (await advancedEndpoint(call, receiver.url('/log/b'), { filterTypes: ['comment.add'] })).id;
      await addActivities(call, 'org-log', 'doc', [comment('comment.add'), comment('comment.update'), comment('comment.delete')]);
      await receiver.waitFor('/log/a', 3);
      // Received is not yet recorded: wait for the three outcomes too.
      for (const deadline = Date.now() + 10_000; (await messages(call, { endpointId: endpointA, status: 'succeeded' })).length < 3;) {
        assert.ok(Date.now() < deadline, 'endpoint A’s deliveries were not recorded');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await settled(call, endpointB, 1);
    });

    it('lists deliveries newest first, filtered by endpoint and status, in keyset pages', async () => {
      const all = await messages(call);
      assert.equal(all.length, 4);
      assert.deepEqual(
        all.map((m) => m.messageId),
        [...all.map((m) => m.messageId)].sort().reverse(),
      );
      const failedOnce = (await messages(call, { status: 'pending' })).map((m) => [m.endpointId, m.eventType, m.lastStatusCode]);
      assert.deepEqual(failedOnce, [[endpointB, 'comment.add', 500]]);
      assert.equal((await messages(call, { endpointId: endpointA, status: 'succeeded' })).length, 3);
      const first = expectSuccess(await call('/v2/workspace/advancedwebhook/messages/get', { limit: 3 })).data;
      assert.equal(first.done, false);
      const second = expectSuccess(await call('/v2/workspace/advancedwebhook/messages/get', { limit: 3, iterator: first.iterator })).data;
      assert.equal(second.done, true);
      assert.equal(second.iterator, null);
      // A later page seeks to where the last one ended, in the index, whatever its depth.
      const later = await statementOf(app.dataSource, /FROM outbox_delivery d JOIN outbox_message m/, async () =>
        expectSuccess(await call('/v2/workspace/advancedwebhook/messages/get', { limit: 3, iterator: first.iterator })),
      );
      const plan = await planOf(app.dataSource, later);
      assert.match(plan, /\(message_id,target\)<\(\?,\?\)|Index Cond: .*ROW\(\(message_id\)::text, \(target\)::text\) < ROW/, plan);
      assert.deepEqual(
        [...first.messages, ...second.messages].map((m: Message) => `${m.messageId}/${m.endpointId}`),
        all.map((m) => `${m.messageId}/${m.endpointId}`),
      );
      expectError(
        await call('/v2/workspace/advancedwebhook/messages/get', { limit: 3, iterator: first.iterator, status: 'failed' }),
        400,
        'INVALID_ARGUMENT',
        'Invalid page token.',
      );
      const entry = all.find((m) => m.endpointId === endpointA)!;
      assert.deepEqual(Object.keys(entry).sort(), [
        'attemptLog',
        'attempts',
        'createdAt',
        'endpointId',
        'eventType',
        'lastError',
        'lastStatusCode',
        'messageId',
        'nextAttemptAt',
        'status',
        'updatedAt',
      ]);
      assert.deepEqual(Object.keys(entry.attemptLog[0]).sort(), ['attempt', 'durationMs', 'error', 'nextAttemptAt', 'responseBody', 'statusCode', 'timestamp']);
    });

    it('replays a message with its webhook-id, to one endpoint or to all, and brings a pending retry forward', async () => {
      const delivered = (await messages(call, { endpointId: endpointA })).at(-1)!;
      const before = receiver.at('/log/a').length;
      const replay = expectSuccess(
        await call('/v2/workspace/advancedwebhook/messages/retry', { messageId: delivered.messageId, endpointId: endpointA }),
        'Advanced webhook message retry scheduled successfully.',
      );
      assert.deepEqual(replay.data, { messageId: delivered.messageId, endpointIds: [endpointA] });
      const hooks = await receiver.waitFor('/log/a', before + 1);
      assert.equal(hooks.at(-1)!.headers['webhook-id'], delivered.messageId);
      // Its outcome is written: a second attempt, succeeded (while in flight, a replay leaves it be).
      const deadline = Date.now() + 10_000;
      for (;;) {
        const replayed = (await messages(call, { endpointId: endpointA })).find((m) => m.messageId === delivered.messageId)!;
        if (replayed.attemptLog.length === 2 && replayed.status === 'succeeded') break;
        assert.ok(Date.now() < deadline, `replay not settled: ${JSON.stringify(replayed)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }

      // The message B failed once: a retry to all sends it to A again and to B now (not in 5 s).
      const pending = (await messages(call, { endpointId: endpointB }))[0]!;
      assert.equal(pending.status, 'pending');
      const both = expectSuccess(await call('/v2/workspace/advancedwebhook/messages/retry', { messageId: pending.messageId })).data;
      assert.deepEqual(both.endpointIds, [endpointA, endpointB].sort());
      await receiver.waitFor('/log/b', 2);
      assert.equal((await settled(call, endpointB, 2)).status, 'succeeded');
    });

    it('refuses unknown messages and endpoints, disabled endpoints and bad fields', async () => {
      expectError(
        await call('/v2/workspace/advancedwebhook/messages/retry', { messageId: 'msg_unknown' }),
        404,
        'NOT_FOUND',
        'Advanced webhook message not found.',
      );
      expectError(
        await call('/v2/workspace/advancedwebhook/messages/retry', { messageId: 'msg_unknown', endpointId: 'ep_unknown' }),
        404,
        'NOT_FOUND',
        'Advanced webhook provider request failed.',
      );
      const disabled = (await advancedEndpoint(call, receiver.url('/log/c'), { disabled: true })).id;
      const [message] = await messages(call, { endpointId: endpointA });
      expectError(
        await call('/v2/workspace/advancedwebhook/messages/retry', { messageId: message!.messageId, endpointId: disabled }),
        400,
        'FAILED_PRECONDITION',
        'The advanced webhook endpoint is disabled.',
      );
      expectError(await call('/v2/workspace/advancedwebhook/messages/retry', {}), 400, 'INVALID_ARGUMENT', 'data.messageId must be a non-empty string');
      expectError(
        await call('/v2/workspace/advancedwebhook/messages/get', { status: 'lost' }),
        400,
        'INVALID_ARGUMENT',
        'data.status must be one of: pending, succeeded, failed, cancelled',
      );
      expectError(
        await call('/v2/workspace/advancedwebhook/messages/get', { limit: 0 }),
        400,
        'INVALID_ARGUMENT',
        'data.limit must be an integer between 1 and 250',
      );
      expectError(await call('/v2/workspace/advancedwebhook/messages/get', { colour: 'red' }), 400, 'INVALID_ARGUMENT', 'Unknown field: data.colour');
      expectSuccess(await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: false }));
      expectError(
        await call('/v2/workspace/advancedwebhook/messages/get', {}),
        400,
        'FAILED_PRECONDITION',
        'Advanced webhooks are disabled for this workspace.',
      );
      expectSuccess(await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
      const never = await freshCall();
      expectError(
        await never('/v2/workspace/advancedwebhook/messages/get', {}),
        400,
        'FAILED_PRECONDITION',
        'Advanced webhooks are not configured for this workspace.',
      );
    });
  });
});

/** Waits until some delivery row matches `condition` (an SQL expression over outbox_delivery). */
async function waitForRow(app: TestApp, condition: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await app.dataSource.query(`SELECT id FROM outbox_delivery WHERE ${condition}`)).length) {
    if (Date.now() > deadline) throw new Error(`no delivery where ${condition}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
