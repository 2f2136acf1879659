import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
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
});
