import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import type { Logger } from '@nestjs/common';
import type { Clock } from '../../src/common/clock.js';
import type { Metrics } from '../../src/common/metrics.js';
import type { WebhookEndpointStore } from '../../src/configs/webhook-endpoint-store.js';
import type { Transactions } from '../../src/database/transactions.js';
import type { DeliverySenders } from '../../src/delivery/delivery-senders.js';
import type { ClaimedDelivery, DeliveryOutcome, OutboxStore } from '../../src/delivery/outbox-store.js';
import { OutcomeWriter } from '../../src/delivery/outcome-writer.js';

/** An outcome of a plain webhook's delivery (no endpoint health to record). */
function outcome(id: string): DeliveryOutcome {
  const delivery = { id, apiKeyId: 'key', messageId: `msg_${id}`, channel: 'webhook', target: 't', route: 'r', attempts: 0, maxAttempts: 3 } as ClaimedDelivery;
  return {
    delivery,
    attempted: true,
    attemptedAt: 0,
    statusCode: 200,
    durationMs: 1,
    error: null,
    answer: null,
    status: 'succeeded',
    nextAttemptAt: null,
    gone: false,
  };
}

/**
 * A writer whose unit of work records each batch it writes, failing the first `failures` of them;
 * a write takes two turns of the event loop, so outcomes can arrive while one is under way.
 */
function writer(failures = 0) {
  const batches: string[][] = [];
  const written: string[] = [];
  let failed = 0;
  const deps = {
    store: {
      settle: async (_manager: unknown, batch: DeliveryOutcome[]) => {
        batches.push(batch.map((item) => item.delivery.id));
        await turns(2);
        return batch;
      },
    } as unknown as OutboxStore,
    senders: { settled: async () => undefined } as unknown as DeliverySenders,
    endpoints: { lockForHealth: async () => new Set(), recordHealth: async () => false } as unknown as WebhookEndpointStore,
    transactions: {
      run: async (work: (manager: unknown) => Promise<unknown>) => {
        if (failed++ < failures) throw new Error('database away');
        return work({});
      },
    } as unknown as Transactions,
    clock: { now: () => 0 } as Clock,
    metrics: { deliveries: { inc: () => undefined } } as unknown as Metrics,
    logger: { warn: () => undefined, log: () => undefined } as unknown as Logger,
  };
  const outcomes = new OutcomeWriter(deps, () => undefined, {
    written: (delivery) => written.push(delivery.id),
    followUpsDue: () => undefined,
    endpointDisabled: () => undefined,
  });
  return { outcomes, batches, written };
}

/** Resolves after `turns` turns of the event loop (its check phase, where `setImmediate` runs). */
async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('OutcomeWriter', () => {
  afterEach(() => mock.timers.reset());

  it('writes an outcome on the next turn of the event loop, not after a timer', async () => {
    // Timers do not run unless ticked: a write waiting for one (setTimeout(0) waits at least
    // 1 ms, all that time holding the attempt's slot) never comes.
    mock.timers.enable({ apis: ['setTimeout'] });
    const { outcomes, batches, written } = writer();
    let recorded = false;
    void outcomes.settleSoon(outcome('d1')).then(() => (recorded = true));
    await turns(6);
    assert.deepEqual(batches, [['d1']]);
    assert.deepEqual(written, ['d1']);
    assert.equal(recorded, true);
  });

  it('writes outcomes that arrive together in one batch, and those arriving during a write in the next', async () => {
    const { outcomes, batches } = writer();
    const first = [outcomes.settleSoon(outcome('a')), outcomes.settleSoon(outcome('b'))];
    // The first write is under way after one turn; these wait for it and share the next.
    await turns(1);
    assert.deepEqual(batches, [['a', 'b']]);
    const second = [outcomes.settleSoon(outcome('c')), outcomes.settleSoon(outcome('d'))];
    await Promise.all([...first, ...second]);
    assert.deepEqual(batches, [
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('tries a failed write again after a second, not on the next turn', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const { outcomes, batches, written } = writer(1);
    void outcomes.settleSoon(outcome('d1'));
    await turns(6);
    assert.deepEqual(written, [], 'the failed write recorded nothing');
    mock.timers.tick(999);
    await turns(6);
    assert.deepEqual(batches, [], 'no second try before the second is up');
    mock.timers.tick(1);
    await turns(6);
    assert.deepEqual(batches, [['d1']]);
    assert.deepEqual(written, ['d1']);
  });
});
