// @testScope engine: the pool and the time limits are the database's; the adapter only carries the requests.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { POSTGRES_POOL_SIZE } from '../src/database/data-source-options.js';
import { startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';

const UNAVAILABLE = 'The service is temporarily unavailable. Try again later.';

/** A table held under an exclusive lock by a session of the test's own, until `release`. */
async function lockTable(url: string, table: string): Promise<{ release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return {
    release: async () => {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

/**
 * A database that is stuck (a table locked by someone else, every connection of the pool busy)
 * answers 503 UNAVAILABLE with Retry-After within the configured limits, never INTERNAL and never
 * after the client gave up, and the service recovers by itself once the lock goes.
 */
describe('PostgreSQL under a lock: bounded waits, 503 and recovery', { skip: process.env.DATABASE_URL ? false : 'needs PostgreSQL (DATABASE_URL)' }, () => {
  let app: TestApp;
  let key: TestKey;
  let call: ReturnType<typeof agentFor>;
  before(async () => {
    app = await startApp({ DATABASE_POOL_WAIT_MS: '500', DATABASE_LOCK_TIMEOUT_MS: '2000', DATABASE_STATEMENT_TIMEOUT_MS: '10000' });
    key = await createKey(app);
    call = agentFor(app, key);
    expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: 'org-locked' }] }));
  });
  after(() => app.close());

  const unavailable = (answer: { status: number; body: unknown; headers: Record<string, string> }) => {
    expectError(answer, 503, 'UNAVAILABLE', UNAVAILABLE);
    assert.equal(answer.headers['retry-after'], '1');
  };

  it('a lock wait ends at DATABASE_LOCK_TIMEOUT_MS; waiting for a connection ends at DATABASE_POOL_WAIT_MS, even for operations that never touch the table; then it recovers', async () => {
    const lock = await lockTable(process.env.DATABASE_URL!, 'organization');
    try {
      const started = Date.now();
      const blocked = Array.from({ length: POSTGRES_POOL_SIZE }, () =>
        call('/v2/organizations/get', { organizationIds: ['org-locked'] }).then((answer) => answer),
      );
      // Every connection now waits on the lock: an operation on another table waits for one.
      // 800 ms lets the requests reach the pool on a loaded machine (300 did not, once in CI);
      // the lock waits last 2 s, so this one's 500 ms pool wait still falls inside them.
      await new Promise((resolve) => setTimeout(resolve, 800));
      const elsewhere = Date.now();
      unavailable(await call('/v2/workspace/domains/get', {}));
      const waited = Date.now() - elsewhere;
      assert.ok(waited >= 400 && waited < 1500, `waited ${waited} ms for a connection`);
      for (const answer of await Promise.all(blocked)) unavailable(answer);
      assert.ok(Date.now() - started < 4000, `lock waits took ${Date.now() - started} ms`);
    } finally {
      await lock.release();
    }
    expectSuccess(await call('/v2/workspace/domains/get', {}));
    assert.deepEqual(
      (expectSuccess(await call('/v2/organizations/get', { organizationIds: ['org-locked'] })).data as { id: string }[]).map((o) => o.id),
      ['org-locked'],
    );
  });

  it('a statement ends at DATABASE_STATEMENT_TIMEOUT_MS when locks may wait forever', async () => {
    const bounded = await startApp({ DATABASE_LOCK_TIMEOUT_MS: '0', DATABASE_STATEMENT_TIMEOUT_MS: '1000' });
    try {
      const other = agentFor(bounded, await createKey(bounded));
      expectSuccess(await other('/v2/organizations/add', { organizations: [{ organizationId: 'org-locked' }] }));
      const lock = await lockTable(process.env.DATABASE_URL!, 'organization');
      try {
        const started = Date.now();
        unavailable(await other('/v2/organizations/get', { organizationIds: ['org-locked'] }));
        assert.ok(Date.now() - started < 3000, `the statement ran ${Date.now() - started} ms`);
      } finally {
        await lock.release();
      }
      expectSuccess(await other('/v2/organizations/get', { organizationIds: ['org-locked'] }));
    } finally {
      await bounded.close();
    }
  });
});
