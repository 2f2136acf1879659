import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { SmtpReceiver } from '../test/helpers/smtp-receiver.js';

type Post = (path: string, data: unknown, headers?: Record<string, string>) => Promise<any>;
type Row = Record<string, unknown>;

/** The case: one comment on a document whose 1,000 users all choose ALL. */
const AUDIENCE = 1000;
const BATCH = 500;
/** What the service runs at once to one destination (its mail route): the bare loop runs the same. */
const ROUTE_CONCURRENCY = 16;
/** How long the run may take before it counts as failed (the bound). */
const LIMIT_MS = 30_000;

const log = (message: string) => process.stdout.write(`${message}\n`);

/** Mails received to addresses starting with `prefix`. */
function countOf(receiver: SmtpReceiver, prefix: string): number {
  return receiver.mails.filter((mail) => mail.to.some((address) => address.startsWith(prefix))).length;
}

/** Resolves when `count` mails to `prefix…` have arrived; the time it took from `since`, with progress. */
async function arrival(receiver: SmtpReceiver, prefix: string, count: number, since: number): Promise<number> {
  for (;;) {
    const arrived = countOf(receiver, prefix);
    if (arrived >= count) return performance.now() - since;
    if (performance.now() - since > LIMIT_MS * 2) throw new Error(`${arrived} of ${count} mails after ${LIMIT_MS * 2} ms`);
    process.stdout.write(`\r  ${prefix}: ${arrived} / ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The e-mail run: a key with the email service on, a document whose 1,000 users all choose
 * ALL, and one comment on it. Timed from the API's answer to the 1,000th mail at the local SMTP
 * server; against a bare loop handing the same number of mails to the same server with
 * nodemailer, `ROUTE_CONCURRENCY` at a time over a pooled transport (the service's own settings).
 */
export async function measureMail(post: Post, receiver: SmtpReceiver): Promise<{ rows: Row[]; notes: string[] }> {
  const created = await post('/v2/workspace/create', { ownerEmail: `bench.mail.${Date.now()}@example.com` });
  const apiKey = Object.keys(created.result.data.apiKeyList)[0]!;
  const workspace = { 'x-svc-workspace-id': created.result.data.id, 'x-svc-workspace-auth-token': created.result.data.authToken };
  const token = (await post('/v2/workspace/authtokens/get', { apiKey }, workspace)).result.data.authTokens[0].token as string;
  const headers = { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token };
  await post('/v2/workspace/emailconfig/update', { useEmailService: true, emailServiceConfig: { type: 'default', fromCompany: 'Bench' } }, headers);
  await post('/v2/workspace/notificationconfig/update', { useNotificationService: true }, headers);
  log(`mail: ${AUDIENCE.toLocaleString('en-US')} users choosing ALL on one document…`);
  const userIds = Array.from({ length: AUDIENCE }, (_, i) => `reader-${i}`);
  for (let start = 0; start < AUDIENCE; start += BATCH) {
    const batch = userIds.slice(start, start + BATCH);
    await post(
      '/v2/users/add',
      { organizationId: 'org-mail', documentId: 'doc-mail', users: batch.map((userId) => ({ userId, name: userId, email: `${userId}@mail.bench` })) },
      headers,
    );
    await post('/v2/notifications/config/set', { organizationId: 'org-mail', userIds: batch, documentIds: ['doc-mail'], config: { email: 'ALL' } }, headers);
  }

  log('mail: one comment…');
  const started = performance.now();
  await post(
    '/v2/activities/add',
    {
      organizationId: 'org-mail',
      documentId: 'doc-mail',
      activities: [
        {
          featureType: 'comment',
          actionType: 'comment.add',
          actionUser: { userId: 'author', name: 'Author' },
          entityTargetData: { commentText: 'Hello, everyone' },
        },
      ],
    },
    headers,
  );
  const serviceMs = await arrival(receiver, 'reader-', AUDIENCE, started);
  log('');

  log(`mail: bare loop, ${AUDIENCE.toLocaleString('en-US')} mails ${ROUTE_CONCURRENCY} at a time…`);
  const transport = nodemailer.createTransport({ url: receiver.url, pool: true } as SMTPTransport.Options);
  const bareStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: ROUTE_CONCURRENCY }, async () => {
      while (next < AUDIENCE) {
        const i = next++;
        await transport.sendMail({
          from: 'no-reply@localhost',
          to: `bare-${i}@mail.bench`,
          subject: 'Author commented on doc-mail',
          text: 'Hello, everyone',
          html: '<p>Hello, everyone</p>',
        });
      }
    }),
  );
  const bareMs = await arrival(receiver, 'bare-', AUDIENCE, bareStarted);
  transport.close();
  log('');

  const duplicates = countOf(receiver, 'reader-') - AUDIENCE;
  const name = `mail, 1 comment to ${AUDIENCE.toLocaleString('en-US')} users choosing ALL (mails/s)`;
  const rate = (ms: number) => Math.round((AUDIENCE / ms) * 1000);
  const rows = [
    { scenario: name, target: 'baseline', 'req/s': rate(bareMs) },
    { scenario: name, target: 'service', 'req/s': rate(serviceMs) },
    { scenario: name, target: 'ratio service/baseline', 'req/s': Number((bareMs / serviceMs).toFixed(2)) },
  ];
  const verdict = serviceMs <= LIMIT_MS ? 'within' : 'OVER';
  const notes = [
    `mail: one comment to ${AUDIENCE.toLocaleString('en-US')} users choosing ALL: all mails at the SMTP server ${(serviceMs / 1000).toFixed(2)} s after the API's answer (${verdict} the ${LIMIT_MS / 1000} s bound), ${(bareMs / serviceMs).toFixed(2)}× the rate of a bare nodemailer loop (${(bareMs / 1000).toFixed(2)} s); ${duplicates} duplicates`,
  ];
  return { rows, notes };
}
