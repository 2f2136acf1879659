import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { neverConfiguredEmail, neverConfiguredWebhook } from '../../src/workspace/key-configs.js';
import { judge } from '../../src/delivery/delivery-outcome.js';
import { destinationsOf, type RoutingConfig } from '../../src/delivery/delivery-routes.js';
import { defaultTriggers } from '../../src/common/event-catalogue.js';
import { involvedUsers } from '../../src/delivery/involved-users.js';
import type { OutboxEvent } from '../../src/delivery/outbox-event.js';
import { ADVANCED_RETRY_DELAYS_MS, parseRetryAfter, retryDelay } from '../../src/delivery/retry-schedule.js';
import { refusedAddress } from '../../src/delivery/webhook-http.js';
import { signature, withoutPersonalData } from '../../src/delivery/webhook-payloads.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('retry schedule (contract 6.3)', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each ±20%, and then gives up', () => {
    const expected = [5000, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
    assert.deepEqual(ADVANCED_RETRY_DELAYS_MS, expected);
    expected.forEach((delay, i) => {
      assert.equal(
        retryDelay(ADVANCED_RETRY_DELAYS_MS, i + 1, undefined, () => 0),
        delay * 0.8,
      );
      assert.equal(
        retryDelay(ADVANCED_RETRY_DELAYS_MS, i + 1, undefined, () => 0.5),
        delay,
      );
      assert.equal(
        retryDelay(ADVANCED_RETRY_DELAYS_MS, i + 1, undefined, () => 0.999999),
        Math.round(delay * 1.2 - delay * 0.4 * 0.000001),
      );
    });
    assert.equal(retryDelay(ADVANCED_RETRY_DELAYS_MS, 8, undefined), undefined);
  });

  it('lets Retry-After lengthen the wait up to twice the scheduled one, never shorten it', () => {
    const cases: [attempt: number, retryAfterMs: number, random: number, expected: number][] = [
      [1, 2000, 0, 4000],
      [1, 0, 0.5, 5000],
      [1, 8000, 0, 8000],
      [1, 10_000, 0.999, 10_000],
      [1, 60_000, 0, 10_000],
      [2, 9 * MINUTE, 0.5, 9 * MINUTE],
      [2, HOUR, 0, 10 * MINUTE],
    ];
    for (const [attempt, retryAfter, random, expected] of cases)
      assert.equal(
        retryDelay(ADVANCED_RETRY_DELAYS_MS, attempt, retryAfter, () => random),
        expected,
        `${attempt}, ${retryAfter}`,
      );
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Mon, 23 Nov 2026 10:01:00 GMT', now), 60_000);
    assert.equal(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now), 0);
    for (const bad of [undefined, '', 'soon', '-5', '1.5']) assert.equal(parseRetryAfter(bad, now), undefined, String(bad));
  });
});

describe('judging an attempt', () => {
  const advanced = { channel: 'advanced_webhook' as const, attempts: 0, maxAttempts: 8 };
  const now = 1_000_000;
  const half = () => 0.5;

  it('a 2xx succeeds, 410 fails for good, anything else is retried', () => {
    for (const statusCode of [200, 201, 204, 299]) assert.equal(judge(advanced, { sent: true, statusCode, durationMs: 1 }, now).status, 'succeeded');
    assert.deepEqual(judge(advanced, { sent: true, statusCode: 410, durationMs: 1 }, now), {
      status: 'failed',
      nextAttemptAt: null,
      error: 'The receiver answered 410 Gone.',
      gone: true,
    });
    for (const [result, error] of [
      [{ sent: true, statusCode: 500, durationMs: 1 }, 'The receiver answered HTTP 500.'],
      [{ sent: true, statusCode: 301, durationMs: 1 }, 'Redirects are not followed (HTTP 301).'],
      [{ sent: true, statusCode: 100, durationMs: 1 }, 'The receiver answered HTTP 100.'],
      [{ sent: true, error: 'No answer within 15000 ms', durationMs: 15000 }, 'No answer within 15000 ms'],
      [{ sent: true, error: 'Refused: 10.0.0.1 is a private address', durationMs: 0 }, 'Refused: 10.0.0.1 is a private address'],
    ] as const) {
      assert.deepEqual(judge(advanced, result, now, half), { status: 'pending', nextAttemptAt: now + 5000, error, gone: false });
    }
  });

  it('the last allowed attempt settles as failed; basic webhooks allow four', () => {
    assert.equal(judge({ ...advanced, attempts: 7 }, { sent: true, statusCode: 500, durationMs: 1 }, now).status, 'failed');
    assert.equal(
      judge({ channel: 'webhook', attempts: 2, maxAttempts: 4 }, { sent: true, statusCode: 500, durationMs: 1 }, now, half).nextAttemptAt,
      now + 30 * MINUTE,
    );
    assert.equal(judge({ channel: 'webhook', attempts: 3, maxAttempts: 4 }, { sent: true, statusCode: 500, durationMs: 1 }, now).status, 'failed');
    // A manual replay is one attempt more than were made.
    assert.equal(judge({ ...advanced, attempts: 8, maxAttempts: 9 }, { sent: true, statusCode: 500, durationMs: 1 }, now).status, 'failed');
  });

  it('a destination gone or switched off settles without an attempt', () => {
    assert.deepEqual(judge(advanced, { sent: false, status: 'cancelled', reason: 'The endpoint was deleted.' }, now), {
      status: 'cancelled',
      nextAttemptAt: null,
      error: 'The endpoint was deleted.',
      gone: false,
    });
  });
});

describe('where an event goes', () => {
  const on = (triggers = defaultTriggers()): RoutingConfig['webhook'] => ({
    useWebhookService: true,
    webhookServiceConfig: {
      ...neverConfiguredWebhook().webhookServiceConfig,
      rawNotificationUrl: 'https://a.example/raw',
      processedNotificationUrl: 'https://a.example/processed',
      triggers,
    },
  });
  const advancedOn = { isEnabled: true, encryptData: false, encodeData: false, publicKey: '', enableDataProtection: false };
  const targets = (type: string, routing: RoutingConfig) => destinationsOf('key', type, routing).map((d) => `${d.channel}:${d.target}:${d.maxAttempts}`);

  it('basic URLs when the service and the trigger are on; endpoints whose filterTypes name the event', () => {
    const endpoints = [
      { id: 'ep_all', filterTypes: null },
      { id: 'ep_comments', filterTypes: ['comment.add'] },
    ];
    const routing: RoutingConfig = { email: neverConfiguredEmail(), webhook: on(), advanced: advancedOn, endpoints };
    assert.deepEqual(targets('comment.add', routing), ['webhook:raw:4', 'webhook:processed:4', 'advanced_webhook:ep_all:8', 'advanced_webhook:ep_comments:8']);
    assert.deepEqual(targets('crdt.update_data', routing), ['advanced_webhook:ep_all:8']);
    assert.deepEqual(targets('invoice.paid', routing), ['advanced_webhook:ep_all:8']);
    assert.deepEqual(targets('comment.add', { ...routing, advanced: { ...advancedOn, isEnabled: false } }), ['webhook:raw:4', 'webhook:processed:4']);
    assert.deepEqual(targets('comment.add', { ...routing, advanced: null }), ['webhook:raw:4', 'webhook:processed:4']);
    assert.deepEqual(targets('comment.add', { ...routing, webhook: { ...on(), useWebhookService: false } }), [
      'advanced_webhook:ep_all:8',
      'advanced_webhook:ep_comments:8',
    ]);
    assert.deepEqual(targets('comment.add', { ...routing, webhook: on({ 'comment.add': false }), endpoints: [] }), []);
    const rawOnly = on();
    rawOnly.webhookServiceConfig.processedNotificationUrl = '';
    assert.deepEqual(targets('comment.add', { email: neverConfiguredEmail(), webhook: rawOnly, advanced: null, endpoints: [] }), ['webhook:raw:4']);
  });

  it('an event is mailed (its audience worked out first) when the email service and its e-mail trigger are on', () => {
    const email = (useEmailService: boolean, triggers = defaultTriggers()): RoutingConfig['email'] => ({
      useEmailService,
      emailServiceConfig: { ...neverConfiguredEmail().emailServiceConfig, triggers },
    });
    const routing = (mail: RoutingConfig['email']): RoutingConfig => ({ email: mail, webhook: neverConfiguredWebhook(), advanced: null, endpoints: [] });
    assert.deepEqual(targets('comment.add', routing(email(true))), ['email_audience:audience:8']);
    assert.deepEqual(targets('comment.add', routing(email(false))), []);
    assert.deepEqual(targets('comment.add', routing(email(true, { ...defaultTriggers(), 'comment.add': false }))), []);
    assert.deepEqual(targets('crdt.update_data', routing(email(true))), []);
    assert.deepEqual(targets('invoice.paid', routing(email(true))), []);
    // Never enabled: no triggers stored, nothing is mailed.
    assert.deepEqual(targets('comment.add', routing({ ...neverConfiguredEmail(), useEmailService: true })), []);
  });

  it('routes of one destination are one concurrency group', () => {
    const [raw, processed, endpoint] = destinationsOf('key', 'comment.add', {
      email: neverConfiguredEmail(),
      webhook: on(),
      advanced: advancedOn,
      endpoints: [{ id: 'ep_1', filterTypes: null }],
    });
    assert.deepEqual([raw!.route, processed!.route, endpoint!.route], ['webhook:key:raw', 'webhook:key:processed', 'advanced_webhook:ep_1']);
  });
});

describe('payloads', () => {
  it("signs as Standard Webhooks do (the specification's example, and the reference library)", () => {
    const secret = 'whsec_plJ3nmyCDGBKInavdOK15jsl';
    const body = '{"event_type":"ping","data":{"success":true}}';
    assert.equal(signature(secret, 'msg_loFOjxBNrRLzqYUf', 1731705121, body), 'v1,rAvfW3dJ/X/qxhsaXPOyyCGmRKsaKWcsNccKXlIktD0=');
    const now = new Date();
    assert.equal(signature(secret, 'msg_1', Math.floor(now.getTime() / 1000), body), new Webhook(secret).sign('msg_1', now, body));
  });

  it('data protection drops every e-mail and the names of users, keeping ids and everything else', () => {
    const payload = {
      actionUser: { userId: 'u1', name: 'Ana', email: 'ana@example.com', color: 'red' },
      data: {
        name: 'Quarterly plan',
        owner: { email: 'owner@example.com' },
        to: [{ userId: 'u2', name: 'Bob' }],
        nested: [[{ userId: 'u3', name: 'Cy', initial: 'C' }]],
      },
    };
    assert.deepEqual(withoutPersonalData(payload), {
      actionUser: { userId: 'u1', color: 'red' },
      data: { name: 'Quarterly plan', owner: {}, to: [{ userId: 'u2' }], nested: [[{ userId: 'u3', initial: 'C' }]] },
    });
  });
});

describe('SSRF guard', () => {
  it('lets only global unicast addresses through', () => {
    for (const allowed of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:93.184.216.34'])
      assert.equal(refusedAddress(allowed), undefined, allowed);
    const refused: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['224.0.0.1', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['192.0.2.1', 'reserved'],
      ['0.0.0.0', 'unspecified'],
      ['255.255.255.255', 'broadcast'],
      ['::1', 'loopback'],
      ['fe80::1', 'linkLocal'],
      ['fc00::1', 'uniqueLocal'],
      ['ff02::1', 'multicast'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:10.0.0.1', 'private'],
      ['2002:7f00:1::', '6to4'],
      // IPv4-compatible and other addresses below 2000::/3 that ipaddr.js calls unicast.
      ['::127.0.0.1', 'loopback'],
      ['::7f00:1', 'reserved'],
      ['::a00:1', 'reserved'],
      ['1000::1', 'reserved'],
      ['4000::1', 'reserved'],
    ];
    for (const [address, range] of refused) assert.match(refusedAddress(address) ?? '', new RegExp(` ${range} address`), address);
    assert.match(refusedAddress('example.com')!, /not an IP address/);
  });
});

describe('who an event involves (MINE)', () => {
  const event = (entityData: unknown, entityTargetData?: unknown, actor = 'ana'): OutboxEvent => ({
    type: 'comment.add',
    source: 'comment',
    key: null,
    organizationId: 'o',
    documentId: 'd',
    actionUser: { userId: actor },
    data: { entityData, entityTargetData },
  });

  it('mentions, assignees, recipients, the thread author and involvedUserIds; never the actor', () => {
    const cases: [unknown, unknown, string[]][] = [
      [{ involvedUserIds: ['x', 'y', 3] }, undefined, ['x', 'y']],
      [{ from: { userId: 'author' } }, undefined, ['author']],
      [{ comments: [{ from: { userId: 'first' } }, { from: { userId: 'second' } }] }, undefined, ['first']],
      [{ assignedTo: { userId: 'assignee' } }, undefined, ['assignee']],
      [undefined, { taggedUserContacts: [{ userId: 'm1' }, { contact: { userId: 'm2' } }], to: [{ userId: 'r1' }] }, ['m1', 'm2', 'r1']],
      [{ comments: [{ from: { userId: 'ana' }, taggedUserContacts: [{ userId: 'deep' }] }] }, undefined, ['deep']],
      [{ from: { userId: 'ana' }, assignedTo: { userId: 'ana' } }, undefined, []],
      ['text', 42, []],
      [{ from: { userId: '' }, assignedTo: 'bob' }, undefined, []],
    ];
    for (const [entityData, entityTargetData, expected] of cases)
      assert.deepEqual([...involvedUsers(event(entityData, entityTargetData))].sort(), expected.sort(), JSON.stringify(entityData));
  });
});
