import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ManualClock, startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectError, expectSuccess } from './factories/workspace.js';
import { addActivities, advancedEndpoint, commentActivity, deliverySuite, type Call } from './helpers/webhooks.js';

type Message = Record<string, any>;
const DAY = 24 * 60 * 60 * 1000;

/**
 * The operations behind the console's webhook tools (issue 34): a test message, the receiver's
 * answer in the attempt log, secret rotation with an overlap window, and recovery of everything
 * failed since a time. Receivers are real HTTP servers; the delivery clock is moved by hand.
 */
describe('webhook console operations: test message, answers, secret rotation, recover since (issue 34)', () => {
  const clock = new ManualClock();
  let app: TestApp;
  const { receiver } = deliverySuite(async ({ database }) => {
    app = await startApp({ DATABASE_URL: database.url, DELIVERY_CONCURRENCY: '8', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, { clock });
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
});
