// @testScope once: ScopedStorage alone (no database, no HTTP).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { ScopedStorage } from '../../src/database/scoped-storage.js';

describe('ScopedStorage', () => {
  it('holds its store across the awaits of a run, and answers undefined outside one', async () => {
    const storage = new ScopedStorage<string>();
    assert.equal(storage.getStore(), undefined);
    const seen = await storage.run('unit', async () => {
      await sleep(1);
      await Promise.resolve();
      return storage.getStore();
    });
    assert.equal(seen, 'unit');
    assert.equal(storage.getStore(), undefined);
  });

  it('keeps a run its store while another run settles before it', async () => {
    const storage = new ScopedStorage<string>();
    let releaseLong!: () => void;
    const longGate = new Promise<void>((resolve) => (releaseLong = resolve));
    const long = storage.run('long', async () => {
      await longGate;
      await sleep(1);
      return storage.getStore();
    });
    assert.equal(await storage.run('short', async () => (await sleep(1), storage.getStore())), 'short');
    releaseLong();
    assert.equal(await long, 'long', 'the short run settling first must not switch the storage off under the long one');
  });

  it('switches off once the last run settles: work a run left behind no longer sees its store', async () => {
    const storage = new ScopedStorage<string>();
    let leftBehind!: Promise<string | undefined>;
    await storage.run('unit', async () => {
      // Scheduled inside the run, read after it has settled. A plain AsyncLocalStorage answers 'unit' here.
      leftBehind = sleep(20).then(() => storage.getStore());
      await sleep(1);
    });
    assert.equal(await leftBehind, undefined);
    // And it switches on again for the next run.
    assert.equal(await storage.run('next', async () => (await sleep(1), storage.getStore())), 'next');
  });

  it('counts a run that throws or rejects as settled', async () => {
    const storage = new ScopedStorage<string>();
    assert.throws(() =>
      storage.run('sync', () => {
        throw new Error('sync failure');
      }),
    );
    await assert.rejects(storage.run('async', async () => Promise.reject(new Error('async failure'))));
    let leftBehind!: Promise<string | undefined>;
    await storage.run('unit', async () => {
      leftBehind = sleep(20).then(() => storage.getStore());
    });
    assert.equal(await leftBehind, undefined, 'failed runs left the count above zero');
  });

  it('answers a synchronous run its value', () => {
    const storage = new ScopedStorage<number>();
    assert.equal(
      storage.run(7, () => storage.getStore()),
      7,
    );
    assert.equal(storage.getStore(), undefined);
  });
});
