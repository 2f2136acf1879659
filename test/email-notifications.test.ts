// @testScope engine: who gets mail, its rendering and its delivery run below the HTTP layer; the adapter only carries the writes that feed them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { activityEvent } from '../src/delivery/outbox-event.js';
import { NotificationRecipients } from '../src/delivery/notification-recipients.js';
import type { Activity } from '../src/activity/activity-store.js';
import { startApp, type TestApp } from './helpers/app.js';
import { countQueries } from './helpers/query-counter.js';
import { addWhileKilled, apiKeyHeadersOn, freePort, postTo, startService, waitForHealth } from './helpers/service-process.js';
import { SmtpReceiver, type ReceivedMail } from './helpers/smtp-receiver.js';
import { addActivities, commentActivity, deliverySuite, type Call } from './helpers/webhooks.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';

/** Waits until none of the key's deliveries is pending: every mail of what was added so far is settled. */
async function settled(app: TestApp, apiKeyId: string, timeoutMs = 10_000): Promise<void> {
  const param = app.config.dialect === 'postgres' ? '$1' : '?';
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = (await app.dataSource.query(`SELECT count(*) AS pending FROM outbox_delivery WHERE api_key_id = ${param} AND status = 'pending'`, [
      apiKeyId,
    ])) as { pending: number | string }[];
    if (Number(row!.pending) === 0) return;
    if (Date.now() > deadline) throw new Error(`${row!.pending} deliveries still pending`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The key's mail deliveries: recipient (target), status, attempts and last error. */
async function mailDeliveries(app: TestApp, apiKeyId: string): Promise<{ target: string; status: string; attempts: number; last_error: string | null }[]> {
  const param = app.config.dialect === 'postgres' ? '$1' : '?';
  const rows = (await app.dataSource.query(
    `SELECT target, status, attempts, last_error FROM outbox_delivery WHERE api_key_id = ${param} AND channel = 'email' ORDER BY target`,
    [apiKeyId],
  )) as {
    target: string;
    status: string;
    attempts: number | string;
    last_error: string | null;
  }[];
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts) }));
}

const tag = (userId: string) => ({ taggedUserContacts: [{ userId, contact: { userId, email: `${userId}@example.com` } }] });

describe('e-mail notifications (contract 6.4)', () => {
  const smtp = new SmtpReceiver();
  let app: TestApp;
  const { receiver } = deliverySuite(async ({ database, receiver }) => {
    await smtp.start();
    app = await startApp({
      DATABASE_URL: database.url,
      DELIVERY_CONCURRENCY: '8',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Collab <notify@collab.example>',
      EMAIL_PROVIDER_URL: receiver.url('/v3/mail/send'),
    });
    return async () => {
      await app.close();
      await smtp.stop();
    };
  });

  /** A key with the email service on (`type` default: the server's SMTP) and org-mail's users. */
  async function mailingKey(emailServiceConfig: Record<string, unknown> = { type: 'default' }): Promise<{ key: TestKey; call: Call }> {
    const key = await createKey(app);
    const call = agentFor(app, key);
    expectSuccess(await call('/v2/workspace/emailconfig/update', { useEmailService: true, emailServiceConfig }));
    expectSuccess(
      await call('/v2/users/add', {
        organizationId: 'org-mail',
        users: ['ana', 'bob', 'cara', 'dan', 'eve'].map((userId) => ({
          userId,
          name: userId[0]!.toUpperCase() + userId.slice(1),
          email: `${userId}@example.com`,
        })),
      }),
    );
    // fay has no address; gus sees only another document.
    expectSuccess(await call('/v2/users/add', { organizationId: 'org-mail', users: [{ userId: 'fay', name: 'Fay' }] }));
    expectSuccess(
      await call('/v2/users/add', { organizationId: 'org-mail', documentId: 'elsewhere', users: [{ userId: 'gus', name: 'Gus', email: 'gus@example.com' }] }),
    );
    return { key, call };
  }

  describe('who gets mail', () => {
    let key: TestKey;
    let call: Call;
    before(async () => {
      ({ key, call } = await mailingKey());
      expectSuccess(await call('/v2/workspace/notificationconfig/update', { useNotificationService: true }));
      const set = async (userIds: string[], email: string, documentIds?: string[]) =>
        expectSuccess(
          await call('/v2/notifications/config/set', { organizationId: 'org-mail', userIds, ...(documentIds ? { documentIds } : {}), config: { email } }),
        );
      // Organization defaults: cara, fay and gus ALL; dan NONE. Documents: cara NONE on doc-quiet, dan ALL on doc-loud.
      await set(['cara', 'fay', 'gus'], 'ALL');
      await set(['dan'], 'NONE');
      await set(['cara'], 'NONE', ['doc-quiet']);
      await set(['dan'], 'ALL', ['doc-loud']);
    });

    /** Adds one activity and answers who was mailed about it. */
    async function mailedFor(documentId: string, activity: Record<string, unknown>): Promise<string[]> {
      const before = smtp.mails.length;
      await addActivities(call, 'org-mail', documentId, [activity]);
      await settled(app, key.apiKey);
      return smtp.mails
        .slice(before)
        .flatMap((mail) => mail.to)
        .map((address) => address.split('@')[0]!)
        .sort();
    }

    const cases: { name: string; documentId: string; activity: Record<string, unknown>; mailed: string[] }[] = [
      {
        name: 'defaults (email MINE): only a mentioned user; organization ALL; never the actor',
        documentId: 'doc-1',
        activity: commentActivity('comment.add', 'ana', { entityTargetData: { commentText: 'hi @Bob', ...tag('bob') } }),
        mailed: ['bob', 'cara'],
      },
      { name: 'no one involved: only the users who chose ALL', documentId: 'doc-1', activity: commentActivity('comment.add', 'ana'), mailed: ['cara'] },
      {
        name: 'the acting user is never mailed, even with ALL',
        documentId: 'doc-1',
        activity: commentActivity('comment.add', 'cara', { entityTargetData: tag('bob') }),
        mailed: ['bob'],
      },
      {
        name: 'a document setting wins over the organization default (NONE here)',
        documentId: 'doc-quiet',
        activity: commentActivity('comment.add', 'ana'),
        mailed: [],
      },
      {
        name: 'a document setting wins over the organization default (ALL here)',
        documentId: 'doc-loud',
        activity: commentActivity('comment.add', 'ana'),
        mailed: ['cara', 'dan'],
      },
      {
        name: 'MINE: the assignee',
        documentId: 'doc-1',
        activity: commentActivity('comment_annotation.assign', 'ana', { entityData: { assignedTo: { userId: 'eve' } } }),
        mailed: ['cara', 'eve'],
      },
      {
        name: 'MINE: the author of the thread replied in',
        documentId: 'doc-1',
        activity: commentActivity('comment.add', 'ana', { entityData: { from: { userId: 'eve' } } }),
        mailed: ['cara', 'eve'],
      },
      {
        name: 'MINE: entityData.involvedUserIds',
        documentId: 'doc-1',
        activity: commentActivity('comment_annotation.status_change', 'ana', { entityData: { involvedUserIds: ['bob', 'dan'] } }),
        mailed: ['bob', 'cara'],
      },
      {
        name: 'events without an e-mail trigger mail no one',
        documentId: 'doc-1',
        activity: commentActivity('comment_annotation.suggestion_accept', 'ana', { entityTargetData: tag('bob') }),
        mailed: [],
      },
    ];
    for (const example of cases) {
      it(example.name, async () => {
        assert.deepEqual(await mailedFor(example.documentId, example.activity), example.mailed);
      });
    }

    it('a trigger switched off, then the service: no mail', async () => {
      expectSuccess(await call('/v2/workspace/emailconfig/update', { emailServiceConfig: { triggers: { 'comment.add': false } } }));
      assert.deepEqual(await mailedFor('doc-1', commentActivity('comment.add', 'ana', { entityTargetData: tag('bob') })), []);
      assert.deepEqual(await mailedFor('doc-1', commentActivity('comment_annotation.add', 'ana', { entityTargetData: tag('bob') })), ['bob', 'cara']);
      expectSuccess(await call('/v2/workspace/emailconfig/update', { useEmailService: false }));
      assert.deepEqual(await mailedFor('doc-1', commentActivity('comment_annotation.add', 'ana', { entityTargetData: tag('bob') })), []);
    });

    it('users without an address, or who cannot see the document, get nothing; the rest of the audience is unaffected', async () => {
      const targets = (await mailDeliveries(app, key.apiKey)).map((d) => d.target);
      assert.ok(!targets.includes('fay') && !targets.includes('gus'), targets.join());
      // The outcomes are in the metrics too.
      const metrics = (await app.get('/metrics')).text;
      const sent = Number(/^deliveries_total\{channel="email",outcome="succeeded"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
      assert.ok(sent >= targets.length - 1, `${sent} mails counted, ${targets.length} deliveries`);
      assert.match(metrics, /^deliveries_total\{channel="email_audience",outcome="succeeded"\} \d+$/m);
    });
  });

  it('renders the mail from the templates: subject, plain text and HTML parts, context, link on an allowed domain, stable Message-ID', async () => {
    const { key, call } = await mailingKey({ type: 'default', fromCompany: 'Acme', fromEmail: 'support@acme.example' });
    expectSuccess(await call('/v2/workspace/domains/add', { domains: ['app.acme.example'] }));
    expectSuccess(
      await call('/v2/organizations/documents/add', { organizationId: 'org-mail', documents: [{ documentId: 'spec', documentName: 'Launch <plan>' }] }),
    );
    const annotation = (url: string) => ({
      entityData: { annotationId: 'a-1', pageInfo: { url } },
      entityTargetData: { commentText: 'Ship it & <celebrate>', ...tag('bob') },
      targetEntityId: 'a-1',
    });
    const since = smtp.mails.length;
    await addActivities(call, 'org-mail', 'spec', [commentActivity('comment.add', 'ana', annotation('https://app.acme.example/spec#a-1'))]);
    const mail = await smtp.waitFor('bob@example.com', 5000, since);
    assert.equal(mail.header('subject'), 'Ana mentioned you in a comment on Launch <plan>');
    assert.equal(mail.header('from'), 'Acme <notify@collab.example>');
    assert.equal(mail.header('reply-to'), 'support@acme.example');
    assert.match(mail.header('message-id')!, /^<dlv_[^@]+@collab\.example>$/);
    assert.match(mail.raw, /Content-Type: multipart\/alternative/i);
    assert.match(mail.text, /Hi Bob,/);
    assert.match(mail.text, /"Ship it & <celebrate>"/);
    assert.match(mail.text, /Open it: https:\/\/app\.acme\.example\/spec#a-1/);
    // The HTML part escapes what users wrote, and links to the page.
    assert.match(mail.text, /Ship it &amp; &lt;celebrate&gt;/);
    assert.match(mail.text, /<a href="https:\/\/app\.acme\.example\/spec#a-1"/);
    assert.match(mail.text, /Acme: you receive this because of your notification settings for Launch &lt;plan&gt;/);
    await settled(app, key.apiKey);

    // A page on another domain is not linked.
    const count = smtp.mails.length;
    await addActivities(call, 'org-mail', 'spec', [commentActivity('comment.add', 'ana', annotation('https://evil.example/phish'))]);
    await settled(app, key.apiKey);
    const [unlinked] = smtp.mails.slice(count) as [ReceivedMail];
    assert.doesNotMatch(unlinked.text, /evil\.example|Open it/);
  });

  it("one recipient's refused address fails that mail alone, at once; the others arrive", async () => {
    const { key, call } = await mailingKey();
    smtp.refused.add('bob@example.com');
    try {
      await addActivities(call, 'org-mail', 'doc-bounce', [commentActivity('comment.add', 'ana', { entityData: { involvedUserIds: ['bob', 'cara', 'dan'] } })]);
      await settled(app, key.apiKey);
    } finally {
      smtp.refused.delete('bob@example.com');
    }
    const deliveries = await mailDeliveries(app, key.apiKey);
    assert.deepEqual(
      deliveries.map((d) => [d.target, d.status, d.attempts]),
      [
        ['bob', 'failed', 1],
        ['cara', 'succeeded', 1],
        ['dan', 'succeeded', 1],
      ],
    );
    assert.match(deliveries[0]!.last_error!, /^SMTP: .*550/);
  });

  it('a user e-mail is one address: lists and line breaks are refused, and one stored before that check is never mailed', async () => {
    const { key, call } = await mailingKey();
    for (const email of [
      'hal@example.com, mallory@evil.test',
      'hal@example.com\r\nBcc: mallory@evil.test',
      'hal@example.com\nmallory@evil.test',
      '<hal@example.com>',
    ]) {
      expectError(
        await call('/v2/users/add', { organizationId: 'org-mail', users: [{ userId: 'hal', email }] }),
        400,
        'INVALID_ARGUMENT',
        /data\.users\[0\]\.email must be a valid e-mail address/,
      );
    }
    // As a row written before users' addresses were checked.
    const param = app.config.dialect === 'postgres' ? ['$1', '$2'] : ['?', '?'];
    await app.dataSource.query(`UPDATE directory_user SET email = ${param[0]} WHERE api_key_id = ${param[1]} AND id = 'bob'`, [
      'bob@example.com, mallory@evil.test',
      key.apiKey,
    ]);
    await addActivities(call, 'org-mail', 'doc-list', [commentActivity('comment.add', 'ana', { entityData: { involvedUserIds: ['bob', 'cara'] } })]);
    await settled(app, key.apiKey);
    const deliveries = await mailDeliveries(app, key.apiKey);
    assert.deepEqual(
      deliveries.map((d) => [d.target, d.status]),
      [
        ['bob', 'failed'],
        ['cara', 'succeeded'],
      ],
    );
    assert.ok(!smtp.mails.some((mail) => mail.to.some((to) => to.includes('evil.test'))), 'no mail reached the added address');
  });

  it('works out an audience in a fixed number of statements, whatever its size', async () => {
    const { key, call } = await mailingKey();
    const add = async (documentId: string, count: number) => {
      const users = Array.from({ length: count }, (_, i) => ({ userId: `${documentId}-u${i}`, name: `User ${i}`, email: `${documentId}-u${i}@example.com` }));
      for (let start = 0; start < count; start += 500)
        expectSuccess(await call('/v2/users/add', { organizationId: 'org-mail', documentId, users: users.slice(start, start + 500) }));
    };
    await add('doc-small', 5);
    await add('doc-large', 900);
    const recipients = app.app.get(NotificationRecipients);
    const counter = countQueries(app.dataSource);
    // The worker's own statements (its poll, each second) are counted too: the fewest of three
    // tries is the audience's alone.
    const statementsFor = async (documentId: string) => {
      const activity = {
        id: 'a',
        featureType: 'comment',
        actionType: 'comment.add',
        actionUser: { userId: 'ana' },
        metadata: { apiKey: key.apiKey, organizationId: 'org-mail', documentId },
      } as unknown as Activity;
      const event = { ...activityEvent(activity), data: { entityData: { involvedUserIds: [`${documentId}-u0`, `${documentId}-u1`] } } };
      let fewest = Infinity;
      let mailed = 0;
      for (let i = 0; i < 3; i++) {
        counter.reset();
        mailed = (await recipients.of(key.apiKey, event)).filter((r) => r.channels.includes('email')).length;
        fewest = Math.min(fewest, counter.count());
      }
      return { statements: fewest, mailed };
    };
    await settled(app, key.apiKey);
    const small = await statementsFor('doc-small');
    const large = await statementsFor('doc-large');
    assert.deepEqual([small.mailed, large.mailed], [2, 2]);
    assert.equal(large.statements, small.statements, `${large.statements} statements for 900 users, ${small.statements} for 5`);
  });

  describe('the third-party provider', () => {
    it("posts each mail to the provider's mail-send API with the key's credentials, sender, template and dynamic data", async () => {
      const { key, call } = await mailingKey({
        type: 'sendgrid',
        apiKey: 'SG.secret',
        fromEmail: 'team@acme.example',
        fromCompany: 'Acme',
        commentTemplateId: 'd-comment',
        tagTemplateId: 'd-tag',
      });
      await addActivities(call, 'org-mail', 'doc-p', [
        commentActivity('comment.add', 'ana', { entityData: { involvedUserIds: ['cara'] }, entityTargetData: { commentText: 'look', ...tag('bob') } }),
      ]);
      await settled(app, key.apiKey);
      const requests = receiver.at('/v3/mail/send');
      assert.equal(requests.length, 2);
      const byRecipient = new Map(requests.map((request) => [request.json.personalizations[0].to[0].email as string, request]));
      for (const request of requests) {
        assert.equal(request.headers.authorization, 'Bearer SG.secret');
        assert.deepEqual(request.json.from, { email: 'team@acme.example', name: 'Acme' });
      }
      const bob = byRecipient.get('bob@example.com')!.json;
      assert.deepEqual(bob.personalizations[0].to, [{ email: 'bob@example.com', name: 'Bob' }]);
      // Bob is mentioned (tag template); Cara is involved otherwise (comment template).
      assert.equal(bob.template_id, 'd-tag');
      assert.equal(byRecipient.get('cara@example.com')!.json.template_id, 'd-comment');
      const data = bob.personalizations[0].dynamic_template_data;
      assert.equal(data.event, 'comment.add');
      assert.equal(data.actor.label, 'Ana');
      assert.equal(data.recipient.userId, 'bob');
      assert.equal(data.mentioned, true);
      assert.equal(data.comment.text, 'look');
      assert.equal(data.document.id, 'doc-p');
      assert.equal(data.subject, 'Ana mentioned you in a comment on doc-p');
      assert.equal(receiver.at('/v3/mail/send').length, 2);
    });

    it('without template ids the rendered subject and parts are sent; a 4xx fails at once, a 5xx is retried', async () => {
      const { key, call } = await mailingKey({ type: 'thirdparty', apiKey: 'SG.other' });
      receiver.answers.set('/v3/mail/send', (hook) => {
        const to = hook.json.personalizations[0].to[0].email as string;
        return to.startsWith('bob') ? { status: 400 } : to.startsWith('cara') ? { status: 503 } : { status: 202 };
      });
      try {
        await addActivities(call, 'org-mail', 'doc-q', [commentActivity('comment.add', 'ana', { entityData: { involvedUserIds: ['bob', 'cara', 'dan'] } })]);
        const deadline = Date.now() + 10_000;
        while ((await mailDeliveries(app, key.apiKey)).filter((d) => d.attempts > 0).length < 3 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
      } finally {
        receiver.answers.delete('/v3/mail/send');
      }
      const dan = receiver.at('/v3/mail/send').find((request) => request.json.personalizations[0].to[0].email === 'dan@example.com')!.json;
      assert.equal(dan.template_id, undefined);
      assert.equal(dan.subject, 'Ana commented on doc-q');
      assert.deepEqual(
        dan.content.map((part: { type: string }) => part.type),
        ['text/plain', 'text/html'],
      );
      assert.equal(dan.from.email, 'notify@collab.example');
      const deliveries = new Map((await mailDeliveries(app, key.apiKey)).map((d) => [d.target, d]));
      assert.equal(deliveries.get('bob')!.status, 'failed');
      assert.match(deliveries.get('bob')!.last_error!, /^The e-mail provider answered HTTP 400/);
      assert.equal(deliveries.get('cara')!.status, 'pending');
      assert.equal(deliveries.get('cara')!.attempts, 1);
      assert.equal(deliveries.get('dan')!.status, 'succeeded');
    });
  });
});

describe('e-mail notifications without SMTP_URL', () => {
  let app: TestApp;
  deliverySuite(async ({ database }) => {
    app = await startApp({ DATABASE_URL: database.url, DELIVERY_CONCURRENCY: '4', SMTP_URL: undefined });
    return () => app.close();
  });

  it('keeps each mail (encrypted in outgoing_mail) and settles it, so nothing is lost', async () => {
    const key = await createKey(app);
    const call = agentFor(app, key);
    expectSuccess(await call('/v2/workspace/emailconfig/update', { useEmailService: true, emailServiceConfig: { type: 'default' } }));
    expectSuccess(await call('/v2/users/add', { organizationId: 'org-kept', users: [{ userId: 'kim', name: 'Kim', email: 'kim.kept@example.com' }] }));
    await addActivities(call, 'org-kept', 'doc', [
      commentActivity('comment.add', 'ana', { entityTargetData: { commentText: 'private words', ...tag('kim') } }),
    ]);
    await settled(app, key.apiKey);
    assert.deepEqual(
      (await mailDeliveries(app, key.apiKey)).map((d) => [d.target, d.status]),
      [['kim', 'succeeded']],
    );
    const param = app.config.dialect === 'postgres' ? '$1' : '?';
    const kept = (await app.dataSource.query(`SELECT subject, content_enc, transport, status FROM outgoing_mail WHERE recipient = ${param}`, [
      'kim.kept@example.com',
    ])) as Record<string, string>[];
    assert.equal(kept.length, 1);
    assert.deepEqual([kept[0]!.subject, kept[0]!.transport, kept[0]!.status], ['Ana mentioned you in a comment on doc', 'log', 'kept']);
    assert.doesNotMatch(kept[0]!.content_enc!, /private words/);
  });
});

describe('e-mail durability', () => {
  const smtp = new SmtpReceiver();
  const suite = deliverySuite(async () => {
    await smtp.start();
    return () => smtp.stop();
  });

  it('kill -9 while comments flow, restart: every acknowledged comment is mailed to each recipient, duplicates keep their Message-ID', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-mail-crash-'));
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      SQLITE_FILE: join(dataDir, 'svc.sqlite'),
      ...(suite.database.url ? { DATABASE_URL: suite.database.url } : {}),
      MASTER_KEY: randomBytes(32).toString('base64'),
      SMTP_URL: smtp.url,
      // Short enough that claims a killed process held come due again soon.
      WEBHOOK_TIMEOUT_MS: '1000',
      DELIVERY_CONCURRENCY: '16',
      RATE_LIMIT_WORKSPACE_CREATE: '0',
      RATE_LIMIT_API_KEY: '0',
    };
    const running = { service: startService(env) };
    try {
      await waitForHealth(port);
      const headers = await apiKeyHeadersOn(port, `mail.crash.${randomBytes(4).toString('hex')}@example.com`);
      assert.equal(
        (await postTo(port, '/v2/workspace/emailconfig/update', { useEmailService: true, emailServiceConfig: { type: 'default' } }, headers)).status,
        200,
      );
      const users = [
        { userId: 'bob', email: 'bob.crash@example.com' },
        { userId: 'cara', email: 'cara.crash@example.com' },
      ];
      assert.equal((await postTo(port, '/v2/users/add', { organizationId: 'org-crash', users }, headers)).status, 200);

      const acknowledged = await addWhileKilled(port, env, running, {
        headers,
        organizationId: 'org-crash',
        batchSize: 3,
        perRound: 18,
        // Each comment is two mails: a few hundred comments keep the wait for them short.
        pauseMs: 25,
        activity: (id) =>
          commentActivity('comment.add', 'ana', { entityData: { involvedUserIds: ['bob', 'cara'] }, entityTargetData: { commentText: `[${id}]` } }),
      });
      assert.ok(acknowledged.size > 30, `only ${acknowledged.size} comments acknowledged`);
      const deadline = Date.now() + 30_000;
      for (;;) {
        const missing = users.flatMap(({ email }) =>
          [...acknowledged]
            .filter((id) => !smtp.mails.some((mail) => mail.to.includes(email) && mail.text.includes(`[${id}]`)))
            .map((id) => `${id} to ${email}`),
        );
        if (!missing.length) break;
        if (Date.now() > deadline) throw new Error(`${missing.length} mails of acknowledged comments never arrived, e.g. ${missing.slice(0, 5).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // A mail handed over twice (killed between the server's answer and its record) keeps its Message-ID.
      const ids = new Map<string, Set<string>>();
      for (const mail of smtp.mails) {
        const comment = /\[(r\d-[ab]-\d+-\d)\]/.exec(mail.text)?.[1];
        if (!comment) continue;
        const key = `${comment} ${mail.to.join()}`;
        (ids.get(key) ?? ids.set(key, new Set()).get(key)!).add(mail.header('message-id')!);
      }
      for (const [mail, messageIds] of ids) assert.equal(messageIds.size, 1, `${mail} arrived with ${[...messageIds].join(', ')}`);
    } finally {
      running.service.child.kill('SIGKILL');
      await running.service.exited;
    }
  });
});
