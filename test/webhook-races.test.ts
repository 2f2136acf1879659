// @testScope engine: which locks endpoint writes and the delivery worker take, and in which order, is the database's; the adapter only carries the requests.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectSuccess } from './factories/workspace.js';
import { addActivities, commentActivity, deliverySuite, type Call } from './helpers/webhooks.js';

/**
 * Endpoint writes racing the delivery worker (PostgreSQL runs them at once; the embedded
 * database takes them in turn and must answer alike): every answer is a success or an error
 * the contract names, never a 500.
 */
describe('advanced webhook endpoints written while deliveries flow', () => {
  let app: TestApp;
  let call: Call;
  const { receiver } = deliverySuite(async ({ database }) => {
    app = await startApp({ DATABASE_URL: database.url, DELIVERY_CONCURRENCY: '32', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    call = agentFor(app, await createKey(app));
    expectSuccess(await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }));
    return () => app.close();
  });

  it('updates and deletes of one endpoint at once, with creates, while its deliveries are recorded: no 500', async () => {
    const ROUNDS = 25;
    const PER_ROUND = 12;
    // Answers alternate between success and failure, so recording outcomes keeps starting and
    // ending each endpoint's failing streak: the outcome writer updates endpoint rows as often
    // as it can, while it holds the rows of the deliveries it records.
    receiver.answers.set('/race', (_hook, nth) => ({ status: nth % 2 ? 200 : 500 }));
    const unexpected: string[] = [];
    const check = (operation: string, response: { status: number; body: any }, allowed: string[]) => {
      const code = response.status === 200 ? 'OK' : String(response.body?.error?.status ?? response.status);
      if (!allowed.includes(code)) unexpected.push(`${operation}: ${response.status} ${JSON.stringify(response.body)}`);
    };
    let flowing = true;
    let events = 0;
    const producers = Array.from({ length: 2 }, async (_, n) => {
      while (flowing) {
        await addActivities(
          call,
          'org-race',
          `doc-${n}`,
          Array.from({ length: 10 }, () => commentActivity()),
        );
        events += 10;
      }
    });
    let pairs = 0;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const created = await Promise.all(
          Array.from({ length: PER_ROUND }, async () => {
            const response = await call('/v2/workspace/advancedwebhook/endpoints/create', { url: receiver.url('/race') });
            check('create', response, ['OK']);
            return response.status === 200 ? (response.body.result.data.id as string) : undefined;
          }),
        );
        // Each endpoint gets deliveries claimed, sent and recorded before it is written to.
        await new Promise((resolve) => setTimeout(resolve, 150));
        await Promise.all(
          created.map(async (endpointId, i) => {
            if (!endpointId) return;
            await new Promise((resolve) => setTimeout(resolve, i * 5));
            const [updated, deleted] = await Promise.all([
              call('/v2/workspace/advancedwebhook/endpoints/update', { endpointId, description: `round ${round}`, disabled: false }),
              call('/v2/workspace/advancedwebhook/endpoints/delete', { endpointId }),
            ]);
            pairs++;
            // The update may come after the delete: the endpoint is gone then.
            check('update', updated, ['OK', 'NOT_FOUND']);
            check('delete', deleted, ['OK']);
          }),
        );
      }
    } finally {
      flowing = false;
      await Promise.all(producers);
    }
    assert.ok(receiver.at('/race').length > 100, `only ${receiver.at('/race').length} deliveries arrived (${events} events)`);
    assert.deepEqual(unexpected, [], `${unexpected.length} of ${pairs} pairs answered otherwise`);
  });
});
