import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryRateLimitStore } from '../src/common/rate-limit/memory-rate-limit.store.js';
import { Redis } from 'ioredis';
import { RedisRateLimitStore } from '../src/common/rate-limit/redis-rate-limit.store.js';
import { startApp, type TestApp } from './helpers/app.js';
import type { Response } from 'supertest';
import { createKey, expectError, expectSuccess, uniqueEmail } from './factories/workspace.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The Redis suites need a Redis server; without one they stop at once with what to do (the
 * store would otherwise fall back to in-process counters and test nothing of Redis).
 */
async function requireRedis(): Promise<void> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw new Error(
      `These tests need Redis at ${REDIS_URL} (REDIS_URL) and could not reach it (${(error as Error).message}). Start one, e.g. redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`,
    );
  } finally {
    client.disconnect();
  }
}

/** An answer of this HTTP status (success or error envelope alike). */
function expectAnswer(answer: Response, status: number): Response {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  return answer;
}

/** Both RateLimit fields parsed (draft-ietf-httpapi-ratelimit-headers-11): each limit's quota and window, and what is left. */
function rateLimitOf(answer: Response): { policy: [string, number, number][]; left: [string, number][] } {
  const items = (field: string) => String(answer.headers[field] ?? '').split(', ');
  const policy = items('ratelimit-policy').map((item) => {
    const match = /^"(\w+)";q=(\d+);w=(\d+)$/.exec(item);
    assert.ok(match, `RateLimit-Policy item ${item}`);
    return [match[1]!, Number(match[2]), Number(match[3])] as [string, number, number];
  });
  const left = items('ratelimit').map((item) => {
    const match = /^"(\w+)";r=(\d+);t=(\d+)$/.exec(item);
    assert.ok(match, `RateLimit item ${item}`);
    assert.ok(Number(match[3]) >= 1 && Number(match[3]) <= policy.find(([name]) => name === match[1])![2], `t within the window: ${item}`);
    return [match[1]!, Number(match[2])] as [string, number];
  });
  return { policy, left };
}

/** The `t` of each `RateLimit` item: seconds until its window ends. */
function resetOf(answer: Response): number[] {
  return String(answer.headers['ratelimit'])
    .split(', ')
    .map((item) => Number(/;t=(\d+)/.exec(item)![1]));
}

for (const store of ['memory', 'redis'] as const) {
  describe(`rate limits (contract 1.6), ${store} counters`, () => {
    let app: TestApp;

    before(async () => {
      if (store === 'redis') await requireRedis();
      app = await startApp({
        REDIS_URL: store === 'redis' ? REDIS_URL : undefined,
        RATE_LIMIT_API_KEY: '3',
        RATE_LIMIT_WORKSPACE_GET: '2',
        RATE_LIMIT_WORKSPACE_CREATE: '4',
        RATE_LIMIT_LOGIN_LINK: '2',
        RATE_LIMIT_LOGIN_LINK_EMAIL: '5',
        RATE_LIMIT_LOGIN_VERIFY: '3',
        RATE_LIMIT_EMAIL_STATUS: '2',
      });
    });
    after(() => app.close());

    it('limits API-key operations per key across operations, with Retry-After, RateLimit and RateLimit-Policy', async () => {
      // Creating keys costs workspace-create budget (4 per IP in this app): two here, two below.
      const key = await createKey(app);
      const other = await createKey(app);
      const answers = [
        expectAnswer(await app.post('/v2/workspace/domains/get', { data: {} }, key.headers), 200),
        expectAnswer(await app.post('/v2/workspace/domains/add', { data: { domains: ['a.example.com'] } }, key.headers), 200),
        // Every request that reaches an operation counts, whatever its answer.
        expectAnswer(await app.post('/v2/workspace/domains/get', { data: { bad: 1 } }, key.headers), 400),
      ];
      // Each answer says the limit (3 a minute) and what is left of it.
      answers.forEach((answer, i) => assert.deepEqual(rateLimitOf(answer), { policy: [['apiKey', 3, 60]], left: [['apiKey', 2 - i]] }));
      const limited = await app.post('/v2/workspace/domains/get', { data: {} }, key.headers);
      expectError(limited, 429, 'RESOURCE_EXHAUSTED', 'Rate limit exceeded for this endpoint. Try again later.');
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${limited.headers['retry-after']}`);
      assert.deepEqual(rateLimitOf(limited), { policy: [['apiKey', 3, 60]], left: [['apiKey', 0]] });
      assert.equal(resetOf(limited)[0], retryAfter, 'the window ends when Retry-After says');
      assert.ok(resetOf(answers[0]!)[0]! >= retryAfter);
      // Refused requests do not move the window.
      const again = await app.post('/v2/workspace/domains/get', { data: {} }, key.headers);
      assert.ok(Number(again.headers['retry-after']) <= retryAfter);
      // Another key has its own budget.
      assert.deepEqual(rateLimitOf(expectAnswer(await app.post('/v2/workspace/domains/get', { data: {} }, other.headers), 200)).left, [['apiKey', 2]]);
      // Operations without a limit carry neither field.
      const health = await app.get('/health');
      assert.equal(health.headers['ratelimit'], undefined);
      assert.equal(health.headers['ratelimit-policy'], undefined);
    });

    it(`counts in ${store}, as /health says`, async () => {
      const health = await app.get('/health');
      assert.deepEqual(health.body.info.rateLimiter, { status: 'up', store, degraded: false });
    });

    it('limits get workspace per workspace with its own message', async () => {
      const key = await createKey(app);
      expectSuccess(await app.post('/v2/workspace/get', { data: {} }, key.workspaceHeaders));
      const second = await app.post('/v2/workspace/get', { data: {} }, key.workspaceHeaders);
      expectSuccess(second);
      assert.deepEqual(rateLimitOf(second), { policy: [['workspaceGet', 2, 60]], left: [['workspaceGet', 0]] });
      const limited = await app.post('/v2/workspace/get', { data: {} }, key.workspaceHeaders);
      expectError(limited, 429, 'RESOURCE_EXHAUSTED', 'Rate limit exceeded. Try again after 1 minute.');
      assert.ok(Number(limited.headers['retry-after']) >= 1);
      assert.deepEqual(rateLimitOf(limited), { policy: [['workspaceGet', 2, 60]], left: [['workspaceGet', 0]] });
    });

    it('limits workspace create per client address', async () => {
      await createKey(app);
      expectError(await app.post('/v2/workspace/create', { data: { ownerEmail: uniqueEmail() } }), 429, 'RESOURCE_EXHAUSTED');
    });

    it('limits send login link per client address', async () => {
      const link = { email: uniqueEmail(), continueUrl: 'http://localhost:3000/login' };
      const first = await app.post('/v2/workspace/email/send-login-link', { data: link });
      expectSuccess(first);
      // Two limits counted: one item each, in one field.
      assert.deepEqual(rateLimitOf(first), {
        policy: [
          ['loginLink', 2, 60],
          ['loginLinkEmail', 5, 3600],
        ],
        left: [
          ['loginLink', 1],
          ['loginLinkEmail', 4],
        ],
      });
      expectSuccess(await app.post('/v2/workspace/email/send-login-link', { data: link }));
      const limited = await app.post('/v2/workspace/email/send-login-link', { data: link });
      expectError(limited, 429, 'RESOURCE_EXHAUSTED', 'Rate limit exceeded for this endpoint. Try again later.');
      // Refused by the first: the second was not counted.
      assert.deepEqual(rateLimitOf(limited), { policy: [['loginLink', 2, 60]], left: [['loginLink', 0]] });
      // Verify counts on its own: a user who asked for several links can still verify one.
      for (let i = 0; i < 3; i++) expectError(await app.post('/v2/workspace/login/verify', { data: { token: `made-up-${i}` } }), 403, 'PERMISSION_DENIED');
      expectError(await app.post('/v2/workspace/login/verify', { data: { token: 'made-up' } }), 429, 'RESOURCE_EXHAUSTED');
      // email/status tells whether an address has an account: walking a list of addresses is slowed.
      for (let i = 0; i < 2; i++)
        expectError(await app.post('/v2/workspace/email/status', { data: { ownerEmail: `nobody${i}@example.com` } }), 404, 'NOT_FOUND');
      expectError(await app.post('/v2/workspace/email/status', { data: { ownerEmail: 'nobody@example.com' } }), 429, 'RESOURCE_EXHAUSTED');
    });
  });
}

describe('rate limit counters', () => {
  it('Redis unreachable: answers within a command timeout, counts in this process meanwhile, and says so in /health', async () => {
    const store = new RedisRateLimitStore('redis://127.0.0.1:1', 'test:down:');
    try {
      const started = performance.now();
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await store.increment('k', 60_000, 2));
      assert.ok(performance.now() - started < 1500, `${Math.round(performance.now() - started)} ms for 4 hits`);
      assert.deepEqual(
        results.map((r) => r.isBlocked),
        [false, false, true, true],
        'limits still hold, counted in this process',
      );
      assert.equal(store.state().degraded, true);
    } finally {
      await store.close();
    }
    const app = await startApp({ REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_API_KEY: '1000' });
    try {
      const key = await createKey(app);
      const started = performance.now();
      for (let i = 0; i < 20; i++) expectSuccess(await app.post('/v2/organizations/get', { data: {} }, key.headers));
      assert.ok(performance.now() - started < 3000, `${Math.round(performance.now() - started)} ms for 20 requests`);
      const health = await app.get('/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.info.rateLimiter.degraded, true);
    } finally {
      await app.close();
    }
  });

  it('fixed windows: hits over the limit are refused until the window closes', async () => {
    await requireRedis();
    const stores = [new MemoryRateLimitStore(), new RedisRateLimitStore(REDIS_URL, `test:${Date.now()}:${Math.random()}:`)];
    for (const store of stores) {
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await store.increment('k', 300, 2));
      assert.deepEqual(
        results.map((r) => r.isBlocked),
        [false, false, true, true],
      );
      await new Promise((resolve) => setTimeout(resolve, 350));
      assert.equal((await store.increment('k', 300, 2)).isBlocked, false, 'a new window opens after ttl');
      assert.equal(store.state().degraded, false, 'counted where configured, not in a fallback');
      await store.close();
    }
  });
});
