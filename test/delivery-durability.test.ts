// @testScope engine: delivery from the outbox (kill -9 and restart, two instances, stopping) runs below the HTTP layer; the adapter only carries the writes that feed it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DeliveryWorker } from '../src/delivery/delivery-worker.js';
import { RoutePacing } from '../src/delivery/route-pacing.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addWhileKilled, apiKeyHeadersOn, KILLS, freePort, postTo, startService, waitForHealth } from './helpers/service-process.js';
import type { WebhookReceiver } from './helpers/webhook-receiver.js';
import { advancedEndpoint, commentActivity, deliverySuite } from './helpers/webhooks.js';
import { advancedRoute } from '../src/delivery/delivery-routes.js';
import { agentFor, createKey, expectSuccess } from './factories/workspace.js';

/** Waits until every id in `expected` has arrived at `path` (as the activity id of a delivery). */
async function allArrived(receiver: WebhookReceiver, path: string, expected: Set<string>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const arrived = new Set(receiver.at(path).map((hook) => hook.json?.data?.id as string));
    const missing = [...expected].filter((id) => !arrived.has(id));
    if (!missing.length) return;
    if (Date.now() > deadline)
      throw new Error(`${missing.length} of ${expected.size} acknowledged events never arrived, e.g. ${missing.slice(0, 5).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every arrival of one activity carries one webhook-id: a receiver can drop the duplicates. */
function assertStableWebhookIds(receiver: WebhookReceiver, path: string): number {
  const idsByActivity = new Map<string, Set<string>>();
  for (const hook of receiver.at(path)) {
    const ids = idsByActivity.get(hook.json.data.id) ?? idsByActivity.set(hook.json.data.id, new Set()).get(hook.json.data.id)!;
    ids.add(String(hook.headers['webhook-id']));
  }
  for (const [activity, ids] of idsByActivity) assert.equal(ids.size, 1, `${activity} arrived with ${[...ids].join(', ')}`);
  return receiver.at(path).length - idsByActivity.size;
}

describe('delivery durability (contract 6.3)', () => {
  const suite = deliverySuite();
  const { receiver } = suite;

  it('kill -9 while events flow, restart: every acknowledged event arrives, duplicates keep their webhook-id', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      SQLITE_FILE: join(dataDir, 'svc.sqlite'),
      ...(suite.database.url ? { DATABASE_URL: suite.database.url } : {}),
      MASTER_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // Short enough that claims a killed process held come due again soon (5 s to start + 1 s + 5 s).
      WEBHOOK_TIMEOUT_MS: '1000',
      DELIVERY_CONCURRENCY: '16',
      RATE_LIMIT_WORKSPACE_CREATE: '0',
      RATE_LIMIT_API_KEY: '0',
    };
    // Receivers take a moment, so attempts are in flight when the process dies.
    receiver.answers.set('/crash', { delayMs: 15 });
    const running = { service: startService(env) };
    try {
      await waitForHealth(port);
      const headers = await apiKeyHeadersOn(port, `crash.${randomBytes(4).toString('hex')}@example.com`);
      assert.equal((await postTo(port, '/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, headers)).status, 200);
      assert.equal((await postTo(port, '/v2/workspace/advancedwebhook/endpoints/create', { url: receiver.url('/crash') }, headers)).status, 200);

      const acknowledged = await addWhileKilled(port, env, running, {
        headers,
        organizationId: 'org-crash',
        batchSize: 5,
        perRound: 60,
        activity: () => commentActivity(),
      });
      assert.ok(acknowledged.size > 100, `only ${acknowledged.size} events acknowledged`);
      await allArrived(receiver, '/crash', acknowledged, 30_000);
      const duplicates = assertStableWebhookIds(receiver, '/crash');
      // At-least-once: what a kill sends again is the attempts in flight then, sent but not yet
      // recorded, no more; one endpoint runs a quarter of DELIVERY_CONCURRENCY at once. (Before
      // an attempt held its slot until its outcome was written, answered attempts waiting for
      // their record came on top: 6 to 9 a kill instead of 4, on either engine.)
      const inFlightWindow = new RoutePacing(Number(env.DELIVERY_CONCURRENCY)).capacityOf(advancedRoute('any'));
      assert.ok(duplicates <= KILLS * inFlightWindow, `${duplicates} duplicates after ${KILLS} kills, more than ${inFlightWindow} a kill`);
    } finally {
      running.service.child.kill('SIGKILL');
      await running.service.exited;
    }
  });

  it('stopping hands attempts still in flight back unjudged, and the next start delivers them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-stop-'));
    const env = {
      DATABASE_URL: suite.database.url,
      SQLITE_FILE: join(dataDir, 'svc.sqlite'),
      DATA_DIR: dataDir,
      MASTER_KEY: randomBytes(32).toString('base64'),
      DELIVERY_CONCURRENCY: '8',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '30000',
      SHUTDOWN_TIMEOUT_MS: '2000',
    };
    let hang = true;
    receiver.answers.set('/stop', () => (hang ? 'hang' : {}));
    const first = await startApp(env);
    const key = await createKey(first);
    await advancedEndpoint(agentFor(first, key), receiver.url('/stop'));
    expectSuccess(
      await agentFor(first, key)('/v2/activities/add', { organizationId: 'org-stop', documentId: 'doc', activities: [{ id: 'stop-1', ...commentActivity() }] }),
    );
    await receiver.waitFor('/stop', 1);
    const closing = Date.now();
    await first.close();
    // The grace is half of SHUTDOWN_TIMEOUT_MS, not the 30 s the attempt could take.
    assert.ok(Date.now() - closing < 5000, `closing took ${Date.now() - closing} ms`);

    hang = false;
    const second = await startApp(env);
    try {
      const [row] = await second.dataSource.query(`SELECT status, attempts, lease_token FROM outbox_delivery WHERE api_key_id = '${key.apiKey}'`);
      assert.equal(row.status, 'pending');
      assert.equal(Number(row.attempts), 0, 'the stopped attempt is not counted');
      await receiver.waitFor('/stop', 2);
      assert.equal(receiver.at('/stop')[1]!.json.data.id, 'stop-1');
    } finally {
      await second.close();
    }
  });

  it(
    'two instances on one PostgreSQL database share the work and never send one attempt twice',
    { skip: process.env.DATABASE_URL ? false : 'needs PostgreSQL (the embedded database has one process)' },
    async () => {
      const shared = {
        DATABASE_URL: suite.database.url,
        MASTER_KEY: randomBytes(32).toString('base64'),
        DELIVERY_CONCURRENCY: '16',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // The sixty adds go to one organization, whose row each add locks while it runs: on a
        // loaded two-core machine the last waited past the 5 s defaults (503), which is not
        // what this test is about.
        DATABASE_LOCK_TIMEOUT_MS: '30000',
        DATABASE_POOL_WAIT_MS: '30000',
      };
      const apps: TestApp[] = [await startApp(shared), await startApp(shared)];
      try {
        receiver.answers.set('/pair/a', { delayMs: 5 });
        receiver.answers.set('/pair/b', { delayMs: 5 });
        const key = await createKey(apps[0]!);
        const calls = apps.map((app) => agentFor(app, key));
        await advancedEndpoint(calls[0]!, receiver.url('/pair/a'));
        await advancedEndpoint(calls[0]!, receiver.url('/pair/b'));
        const ids = new Set<string>();
        await Promise.all(
          Array.from({ length: 60 }, async (_, n) => {
            const activities = Array.from({ length: 5 }, (_, i) => ({ id: `pair-${n}-${i}`, ...commentActivity() }));
            expectSuccess(await calls[n % 2]!('/v2/activities/add', { organizationId: 'org-pair', documentId: 'doc', activities }));
            activities.forEach((a) => ids.add(a.id));
          }),
        );
        await allArrived(receiver, '/pair/a', ids, 20_000);
        await allArrived(receiver, '/pair/b', ids, 20_000);
        for (const path of ['/pair/a', '/pair/b']) {
          assert.equal(receiver.at(path).length, 300, `${path}: ${receiver.at(path).length} arrivals for 300 events`);
          assert.equal(new Set(receiver.at(path).map((hook) => hook.headers['webhook-id'])).size, 300);
        }
        const count = async (sql: string) => Number((await apps[0]!.dataSource.query(sql))[0].n);
        const deadline = Date.now() + 10_000;
        while ((await count(`SELECT count(*) AS n FROM outbox_delivery WHERE api_key_id = '${key.apiKey}' AND status = 'succeeded'`)) < 600) {
          assert.ok(Date.now() < deadline, 'outcomes not all written');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.equal(
          await count(`SELECT count(*) AS n FROM delivery_attempt a JOIN outbox_delivery d ON d.id = a.delivery_id WHERE d.api_key_id = '${key.apiKey}'`),
          600,
        );
        for (const app of apps) assert.ok(app.app.get(DeliveryWorker).counts.succeeded > 0, 'both instances delivered');
      } finally {
        for (const app of apps) await app.close();
      }
    },
  );

  it(
    'an endpoint deleted through one instance gets nothing more from the other',
    { skip: process.env.DATABASE_URL ? false : 'needs PostgreSQL (the embedded database has one process)' },
    async () => {
      const shared = {
        DATABASE_URL: suite.database.url,
        MASTER_KEY: randomBytes(32).toString('base64'),
        DELIVERY_CONCURRENCY: '64',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_TIMEOUT_MS: '1500',
      };
      const apps: TestApp[] = [await startApp(shared), await startApp(shared)];
      try {
        receiver.answers.set('/deleted-elsewhere', 'hang');
        const key = await createKey(apps[0]!);
        const calls = apps.map((app) => agentFor(app, key));
        const { id } = await advancedEndpoint(calls[0]!, receiver.url('/deleted-elsewhere'));
        for (let n = 0; n < 20; n++) {
          const activities = Array.from({ length: 10 }, () => commentActivity());
          expectSuccess(await calls[n % 2]!('/v2/activities/add', { organizationId: 'org-deleted-elsewhere', documentId: 'doc', activities }));
        }
        // Both instances have attempts hanging and more claimed behind them.
        await receiver.waitFor('/deleted-elsewhere', 32);
        expectSuccess(await calls[1]!('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId: id }));
        // The other instance learns of it within a second or so (a request it had sent just before
        // may still arrive). From then on nothing: the attempts hanging end within 1.5 s, and had it
        // kept what it had queued, it would send that as they do.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        const arrived = receiver.at('/deleted-elsewhere').length;
        await new Promise((resolve) => setTimeout(resolve, 4000));
        assert.equal(receiver.at('/deleted-elsewhere').length, arrived);
        // Neither instance holds on to anything of it.
        assert.deepEqual(
          apps.map((app) => app.app.get(DeliveryWorker).claimsHeld),
          [0, 0],
        );
      } finally {
        for (const app of apps) await app.close();
      }
    },
  );
});
