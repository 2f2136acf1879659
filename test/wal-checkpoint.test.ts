// @testScope once: SQLite's checkpoint worker on a file-backed database of its own, whatever the run's engine; no HTTP framework is involved.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Sql } from '../src/database/sql.js';
import { WalCheckpointer } from '../src/database/wal-checkpointer.js';
import { startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectSuccess } from './factories/workspace.js';

type CheckpointerInside = { worker?: { threadId: number; terminate(): Promise<number>; once(event: 'exit', listener: () => void): void } };
const workerOf = (app: TestApp) => (app.app.get(WalCheckpointer) as unknown as CheckpointerInside).worker;
const autocheckpointOf = async (app: TestApp) =>
  ((await app.dataSource.query('PRAGMA wal_autocheckpoint')) as { wal_autocheckpoint: number }[])[0]!.wal_autocheckpoint;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (up to 5 s) until the worker has started and the connection has handed it its checkpoints. */
async function workerRunning(app: TestApp): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(workerOf(app) && (await autocheckpointOf(app)) === 10_000) && Date.now() < deadline) await sleep(20);
  assert.ok(workerOf(app), 'the worker started');
  assert.equal(await autocheckpointOf(app), 10_000, 'the connection keeps only a backstop of its own');
}

/** Always on a file-backed embedded database: the checkpointer exists for that case only. */
describe('embedded database: write-ahead log checkpoints in a worker thread', () => {
  let app: TestApp;
  const autocheckpoint = () => autocheckpointOf(app);

  before(async () => {
    app = await startApp({ DATABASE_URL: undefined, SQLITE_FILE: join(mkdtempSync(join(tmpdir(), 'svc-wal-')), 'svc.sqlite') });
  });
  after(() => app.close());

  it('starts no worker while nothing is written after start-up', async () => {
    // Four looks at the log (every 250 ms) find no write: start-up's own are not counted.
    await sleep(1000);
    assert.equal(workerOf(app), undefined);
    assert.equal(await autocheckpoint(), 1000, "until then the connection checkpoints by itself, at SQLite's default");
  });

  it('copies committed writes into the database file off the event loop', async () => {
    const call = agentFor(app, await createKey(app));
    await workerRunning(app);
    const activities = Array.from({ length: 500 }, (_, i) => ({
      featureType: 'comment',
      actionType: 'comment.add',
      actionUser: { userId: `u${i}` },
      entityData: { text: `note ${i}` },
    }));
    for (let batch = 0; batch < 3; batch++)
      expectSuccess(await call('/v2/activities/add', { organizationId: 'wal-org', documentId: `doc-${batch}`, activities }));
    const checkpointer = app.app.get(WalCheckpointer);
    const deadline = Date.now() + 5000;
    while (!(checkpointer.latest && checkpointer.latest.checkpointed === checkpointer.latest.log) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(checkpointer.latest, 'the worker reported a checkpoint');
    assert.ok(checkpointer.latest.log > 0);
    assert.equal(checkpointer.latest.checkpointed, checkpointer.latest.log, 'every frame reached the database file');
  });

  it("gives each connection a page cache of 2 MB (SQLite's default size), not better-sqlite3's 16", async () => {
    assert.deepEqual(await cacheSizes(app), { writer: -2048, reader: -2048 });
  });

  it('keeps savepoint journals in memory (a commit group runs each unit in a savepoint)', async () => {
    const [{ temp_store: tempStore }] = (await app.dataSource.query('PRAGMA temp_store')) as { temp_store: number }[];
    assert.equal(tempStore, 2, 'temp_store = MEMORY');
  });

  it('hands checkpoints back to the connection if the worker stops unasked', async () => {
    await workerOf(app)!.terminate();
    const deadline = Date.now() + 2000;
    while ((await autocheckpoint()) !== 1000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await autocheckpoint(), 1000);
    assert.equal(workerOf(app), undefined);
  });
});

/** The page cache sizes (SQLite's `cache_size`: KiB when negative) of the writing and the reading connection. */
async function cacheSizes(app: TestApp): Promise<{ writer: number; reader: number }> {
  const [{ cache_size: writer }] = (await app.dataSource.query('PRAGMA cache_size')) as { cache_size: number }[];
  const reads = (app.app.get(Sql) as unknown as { reads: { reader: { pragma(sql: string, options: { simple: true }): number } } }).reads;
  return { writer, reader: reads.reader.pragma('cache_size', { simple: true }) };
}

describe('embedded database: page cache size', () => {
  it('is SQLITE_CACHE_SIZE on both connections', async () => {
    const app = await startApp({ DATABASE_URL: undefined, SQLITE_FILE: join(mkdtempSync(join(tmpdir(), 'svc-wal-')), 'svc.sqlite'), SQLITE_CACHE_SIZE: '3mb' });
    try {
      assert.deepEqual(await cacheSizes(app), { writer: -3072, reader: -3072 });
    } finally {
      await app.close();
    }
  });
});

describe('checkpoint worker lifetime', () => {
  it('stops with the app', async () => {
    const app = await startApp({ DATABASE_URL: undefined, SQLITE_FILE: join(mkdtempSync(join(tmpdir(), 'svc-wal-')), 'svc.sqlite') });
    await createKey(app);
    await workerRunning(app);
    const worker = workerOf(app)!;
    let exited = false;
    worker.once('exit', () => (exited = true));
    await app.close();
    assert.equal(exited, true, 'the worker had exited when close resolved');
  });

  it('starts no checkpoint worker in memory', async () => {
    const app = await startApp({ DATABASE_URL: undefined, SQLITE_FILE: ':memory:' });
    try {
      await createKey(app);
      await sleep(600);
      assert.equal(workerOf(app), undefined);
    } finally {
      await app.close();
    }
  });
});
