import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pool } from 'pg';
import { POSTGRES_POOL_SIZE } from '../src/database/data-source-options.js';
import { startApp, type TestApp } from './helpers/app.js';
import { eventually } from './helpers/live-clients.js';
import { createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';

/** `GET /metrics`: Prometheus text with requests per operation, rate-limit rejections, the outbox and the pool. */
describe('metrics', () => {
  let app: TestApp;
  let key: TestKey;
  before(async () => {
    app = await startApp({ RATE_LIMIT_API_KEY: '3' });
    key = await createKey(app);
  });
  after(() => app.close());

  const scrape = async () => {
    const response = await app.get('/metrics');
    assert.equal(response.status, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return response.text;
  };
  const value = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}"[\]()/.+]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

  it('counts requests and their latency per operation, and rate-limit rejections', async () => {
    for (let i = 0; i < 3; i++) expectSuccess(await app.post('/v2/organizations/get', { data: {} }, key.headers));
    expectError(await app.post('/v2/organizations/get', { data: {} }, key.headers), 429, 'RESOURCE_EXHAUSTED');
    const text = await scrape();
    assert.equal(value(text, 'http_requests_total{operation="/v2/organizations/get",status="200"}'), 3);
    assert.equal(value(text, 'http_requests_total{operation="/v2/organizations/get",status="429"}'), 1);
    assert.equal(value(text, 'http_request_duration_seconds_count{operation="/v2/organizations/get"}'), 4);
    assert.equal(value(text, 'rate_limit_rejections_total{limit="apiKey"}'), 1);
    assert.ok(value(text, 'outbox_deliveries{state="pending"}') >= 0);
    if (app.config.dialect === 'postgres') assert.ok(value(text, 'db_pool_connections{state="open"}') >= 1, text);
    assert.match(text, /^process_cpu_seconds_total /m);
  });

  it("the pool's waiting gauge: 0 when idle (the scrape's own queries are not counted), the requests waiting when the pool is exhausted", async () => {
    if (app.config.dialect !== 'postgres') {
      assert.doesNotMatch(await scrape(), /^db_pool_connections/m, 'PostgreSQL only');
      return;
    }
    const waiting = (text: string) => value(text, 'db_pool_connections{state="waiting"}');
    // The scrape's samplers query the database: once they have opened connections, those are
    // idle at the next scrape, and its queries queue for them.
    await scrape();
    for (let i = 0; i < 3; i++) {
      const idle = await scrape();
      assert.equal(waiting(idle), 0, idle);
      assert.ok(value(idle, 'db_pool_connections{state="idle"}') >= 1, idle);
    }
    const pool = (app.dataSource.driver as unknown as { master: Pool }).master;
    const held = await Promise.all(Array.from({ length: POSTGRES_POOL_SIZE }, () => pool.connect()));
    const queued = pool.connect();
    try {
      assert.equal(pool.waitingCount, 1);
      const scraping = scrape();
      // The scrape read the gauge, and its own queries now wait too: let everything go.
      await eventually(() => pool.waitingCount > 1, "the scrape's queries queued");
      held.splice(0).forEach((client) => client.release());
      const exhausted = await scraping;
      assert.equal(waiting(exhausted), 1, exhausted);
      assert.equal(value(exhausted, 'db_pool_connections{state="open"}'), POSTGRES_POOL_SIZE, exhausted);
      assert.equal(value(exhausted, 'db_pool_connections{state="idle"}'), 0, exhausted);
    } finally {
      held.forEach((client) => client.release());
      (await queued).release();
    }
  });
});
