// @testScope once: the console's browser paths run on the first combination chosen (SQLite with Fastify by default) to keep CI short; every operation it calls, console sessions included, is tested on all three combinations in its own file.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { startApp, type TestApp } from './helpers/app.js';
import { launchChromium } from './helpers/browser.js';
import { SmtpReceiver } from './helpers/smtp-receiver.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { advancedEndpoint } from './helpers/webhooks.js';
import { agentFor, createKey, expectSuccess, type TestKey } from './factories/workspace.js';

// The callbacks given to `page.evaluate` run in the page; the test's program has Node's types, not the DOM's.
declare const document: any;
declare const window: any;
declare const localStorage: { length: number };
declare const sessionStorage: { length: number };

/** Set to a folder to keep a screenshot of each screen (the docs' come from here: docs/console). */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS_DIR;

describe('the console in a browser (issue 34)', () => {
  let app: TestApp;
  let smtp: SmtpReceiver;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let base: string;
  const pageErrors: string[] = [];

  before(async () => {
    smtp = await new SmtpReceiver().start();
    receiver = await new WebhookReceiver().start();
    app = await startApp({
      SMTP_URL: smtp.url,
      DELIVERY_CONCURRENCY: '4',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_LOGIN_LINK: '1000',
      RATE_LIMIT_LOGIN_LINK_EMAIL: '1000',
    });
    // The login link may continue only to CONSOLE_DOMAIN or localhost.
    base = `http://localhost:${app.port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app.close();
    await receiver.stop();
    await smtp.stop();
  });

  /** Signs `owner` in through the sign-in screen and the mailed link, in a fresh browser context. */
  async function signIn(owner: TestKey, options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {}) {
    const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light', viewport: options.viewport ?? { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${error.message}\n${error.stack}`));
    page.on('console', (message) => message.type() === 'error' && pageErrors.push(message.text()));
    const opened = await page.goto(`${base}/console`);
    await page.getByLabel('E-mail address').fill(owner.ownerEmail);
    const mailsBefore = smtp.mails.length;
    await page.getByRole('button', { name: 'Mail me a sign-in link' }).click();
    await see(page, /a sign-in link is on its way/);
    const mail = await smtp.waitFor(owner.ownerEmail, 5000, mailsBefore);
    const link = /http:\/\/localhost:\d+\/console\S*/.exec(mail.text)![0];
    await page.goto(link);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    return { context, page, opened: opened!, link };
  }

  /** Waits for a text; a timeout says what the screen said instead (its failures). */
  async function see(page: Page, text: string | RegExp) {
    try {
      await page.getByText(text).first().waitFor({ timeout: 10_000 });
    } catch (error) {
      const failures = await page.locator('.failure').allInnerTexts();
      throw new Error(`never saw ${text} on ${page.url()}; the screen says: ${failures.join(' | ') || 'no failure'}; page errors: ${pageErrors.join(' | ')}`, {
        cause: error,
      });
    }
  }

  /** Opens a screen from the navigation and waits until it has loaded. */
  async function open(page: Page, title: string) {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: title, exact: true }).click();
    await page.getByRole('heading', { name: title, level: 1 }).waitFor();
    await settled(page);
  }

  /** Waits until no part of the screen says it is loading; a timeout names what still loads. */
  async function settled(page: Page) {
    try {
      await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0, undefined, { timeout: 10_000 });
    } catch (error) {
      const still = await page.locator('.loading').allInnerTexts();
      throw new Error(`still loading on ${page.url()}: ${still.join(' | ')}; page errors: ${pageErrors.join(' | ')}`, { cause: error });
    }
  }

  async function screenshot(page: Page, name: string) {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  it('the whole owner path: login link → console → new key → failing endpoint → failed attempts → fixed → recover since → the original webhook-id, verified', async (t) => {
    const owner = await createKey(app);
    const { context, page, opened, link } = await signIn(owner);
    t.after(() => context.close());
    assert.match(opened.headers()['content-security-policy']!, /script-src 'self'; style-src 'self'/);
    assert.match(opened.headers()['content-security-policy']!, /frame-ancestors 'none'/);
    assert.equal(opened.headers()['x-frame-options'], 'DENY');
    // The login token leaves the address bar, and the session is in an HttpOnly, SameSite=Strict cookie only.
    assert.match(link, /[?&]token=/);
    assert.equal(new URL(page.url()).searchParams.get('token'), null);
    const [cookie] = (await context.cookies()).filter((c) => c.name === 'console_session');
    assert.ok(cookie, 'the session cookie is set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.deepEqual(await pageReadable(page), { cookie: '', local: 0, session: 0 });
    assert.ok(!(await page.content()).includes(owner.workspaceToken), 'the workspace token is never in the page');
    await screenshot(page, 'overview');

    // A new key, its token shown once; then the console works on it.
    await page.getByLabel('Name').fill('Browser key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const created = await page.locator('.done', { hasText: 'Created' }).innerText();
    const newKey = /Created (\S+)\./.exec(created)![1]!;
    const newToken = await page.locator('.secret code').innerText();
    expectSuccess(await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-svc-api-key': newKey, 'x-svc-auth-token': newToken }));
    await page.getByLabel('API key', { exact: true }).selectOption(newKey);
    await page.waitForURL(new RegExp(`k=${newKey}`));

    // An endpoint at a receiver that answers 410 Gone: its delivery fails at once (and the endpoint is disabled).
    receiver.answers.set('/owner-path', { status: 410 });
    await open(page, 'Webhook endpoints');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await see(page, 'Advanced webhooks are on.');
    await page.getByLabel('URL').fill(receiver.url('/owner-path'));
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await see(page, /Created endpoint/);
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    const secret = await page.locator('.secret code').innerText();
    assert.match(secret, /^whsec_/);
    await screenshot(page, 'endpoints');

    await page.getByRole('link', { name: 'Messages' }).click();
    await page.getByRole('heading', { name: 'Message log', level: 1 }).waitFor();
    await settled(page);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await see(page, /Test message .* queued/);
    const [failed] = await receiver.waitFor('/owner-path', 1);
    // The failed attempt shows up, with the receiver's status.
    await refreshUntil(page, () => page.locator('.message .badge', { hasText: 'failed' }).count());
    await page.locator('.message summary').first().click();
    await page.locator('.message table tbody tr td', { hasText: '410' }).first().waitFor();
    await screenshot(page, 'message-log');

    // Fixed: the receiver answers 200 and the endpoint is enabled again; recover everything failed since a minute ago.
    receiver.answers.set('/owner-path', { status: 200 });
    await open(page, 'Webhook endpoints');
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('region', { name: 'Endpoints' }).getByLabel('Disabled').uncheck();
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await see(page, /Saved endpoint/);
    await open(page, 'Message log');
    await page.getByLabel('Failed since').fill(await localInput(page, Date.now() - 60_000));
    await page.getByRole('button', { name: 'Recover failed messages' }).click();
    await see(page, /Recovered 1 failed message/);
    const hooks = await receiver.waitFor('/owner-path', 2);
    assert.equal(hooks[1]!.headers['webhook-id'], failed!.headers['webhook-id'], 'the recovered delivery carries the original webhook-id');
    new Webhook(secret).verify(hooks[1]!.body, hooks[1]!.headers as Record<string, string>);
  });

  it('rotation: both secrets verify during the overlap, only the new one after it', async (t) => {
    const owner = await createKey(app);
    const { id, secret: oldSecret } = await advancedEndpoint(agentFor(app, owner), receiver.url('/rotation'));
    const { context, page } = await signIn(owner);
    t.after(() => context.close());
    await open(page, 'Webhook endpoints');
    await page.getByLabel('On rotation, the old secret keeps signing for (seconds)').fill('3');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await see(page, /Rotated\. The previous secret still signs until/);
    const newSecret = await page.locator('.secret code').innerText();
    assert.notEqual(newSecret, oldSecret);
    const rotatedAt = Date.now();

    const sendTest = async (count: number) => {
      await open(page, 'Message log');
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await see(page, /Test message .* queued/);
      return (await receiver.waitFor('/rotation', count))[count - 1]!;
    };
    const during = await sendTest(1);
    assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2, 'two signatures during the overlap');
    assert.ok(verifies(oldSecret, during) && verifies(newSecret, during), 'both secrets verify during the overlap');

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, rotatedAt + 3_500 - Date.now())));
    const afterwards = await sendTest(2);
    assert.equal(String(afterwards.headers['webhook-signature']).split(' ').length, 1);
    assert.ok(verifies(newSecret, afterwards), 'the new secret verifies');
    assert.ok(!verifies(oldSecret, afterwards), 'the old secret no longer does');
    assert.equal((await api(owner, '/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: id })).secret, newSecret);
  });

  it('recover since: only failed messages in the window are sent again, once each, with progress', async (t) => {
    const owner = await createKey(app);
    const call = agentFor(app, owner);
    const { id } = await advancedEndpoint(call, receiver.url('/window'));
    const enable = async () => expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/update', { endpointId: id, disabled: false }));
    const sendTest = async (status: number) => {
      receiver.answers.set('/window', { status });
      const before = receiver.at('/window').length;
      const { messageId } = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/test', { endpointId: id })).data;
      await receiver.waitFor('/window', before + 1);
      const settledMessage = await eventuallyMessage(owner, id, messageId, status === 200 ? 'succeeded' : 'failed');
      if (status !== 200) await enable();
      return settledMessage;
    };
    const before = await sendTest(410); // failed, before the window
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const windowStart = Date.now();
    const succeeded = await sendTest(200); // in the window, but delivered
    const inWindow = await sendTest(410); // in the window, failed
    receiver.answers.set('/window', { status: 200 });

    const { context, page } = await signIn(owner);
    t.after(() => context.close());
    await open(page, 'Message log');
    await page.getByLabel('Failed since').fill(await localInput(page, windowStart));
    await page.getByRole('button', { name: 'Recover failed messages' }).click();
    await see(page, /Recovered 1 failed message/);
    assert.match(await page.locator('.progress').innerText(), /10 of 10 parts of the window, 1 messages so far/);
    assert.equal(await page.locator('.progress progress').getAttribute('value'), '10');
    await screenshot(page, 'recover');

    const count = await receiver.waitFor('/window', 4);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = receiver.at('/window').map((hook) => String(hook.headers['webhook-id']));
    assert.equal(count.length, 4);
    assert.deepEqual(
      [before, succeeded, inWindow].map((message) => ids.filter((webhookId) => webhookId === message.messageId).length),
      [1, 1, 2],
      'only the failed message in the window is sent again, once',
    );
  });

  it('security: no cross-site POST gets through, and editing ids never reaches another owner', async (t) => {
    const owner = await createKey(app);
    const stranger = await createKey(app);
    const { context, page } = await signIn(owner);
    t.after(() => context.close());

    // A page of another site (another port: the same "site" for cookies, so the browser even sends the cookie along).
    const attacker = await serve(
      (port) => `<!doctype html><form id="f" method="post" enctype="text/plain" action="${base}/v2/workspace/domains/add">
      <input name='{"data":{"domains":["evil.example"]},"x":"' value='"}'></form>
      <script>
        window.fetchResult = fetch('${base}/v2/workspace/domains/add', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'x-svc-api-key': '${owner.apiKey}', 'x-console-csrf': 'guess' }, body: JSON.stringify({ data: { domains: ['evil2.example'] } }) }).then(() => 'sent', (e) => 'blocked: ' + e.message);
      </script><p>${port}</p>`,
    );
    t.after(() => new Promise((resolve) => attacker.close(resolve)));
    const evil = await context.newPage();
    await evil.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/`);
    assert.match(await evil.evaluate(() => window.fetchResult as Promise<string>), /^blocked/);
    await Promise.all([evil.waitForNavigation(), evil.evaluate(() => document.getElementById('f').submit())]);
    assert.match(await evil.content(), /"status":\s*"(INVALID_ARGUMENT|PERMISSION_DENIED)"/);
    assert.deepEqual((await api(owner, '/v2/workspace/domains/get', {})).allowedDomains, [], 'nothing was added');

    // The console's own page, editing ids in its requests: another owner's workspace and key are refused.
    const answers = await page.evaluate(
      async ({ workspaceId, apiKey }) => {
        const post = async (path: string, headers: Record<string, string>) => {
          const session = (await (
            await fetch('/v2/console/session/get', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":{}}' })
          ).json()) as any;
          const response = await fetch(path, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-console-csrf': session.result.data.csrfToken, ...headers },
            body: '{"data":{}}',
          });
          return [response.status, ((await response.json()) as any).error?.status];
        };
        return [
          await post('/v2/workspace/apikeys/get', { 'x-svc-workspace-id': workspaceId }),
          await post('/v2/workspace/domains/get', { 'x-svc-api-key': apiKey }),
        ];
      },
      { workspaceId: stranger.workspaceId, apiKey: stranger.apiKey },
    );
    assert.deepEqual(answers, [
      [403, 'PERMISSION_DENIED'],
      [403, 'PERMISSION_DENIED'],
    ]);

    // Signing out ends the session: the console shows the sign-in screen again, and the cookie no longer works.
    const cookie = (await context.cookies()).find((c) => c.name === 'console_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    const reused = await app.post('/v2/console/session/get', { data: {} }, { cookie: `console_session=${cookie.value}` });
    assert.equal(reused.status, 401);
  });

  it("forms answer with the API's validation messages; delivery health lists a failing endpoint; the permission checker says which grant decides", async (t) => {
    const owner = await createKey(app);
    const call = agentFor(app, owner);
    receiver.answers.set('/down', { status: 503 });
    const { id } = await advancedEndpoint(call, receiver.url('/down'));
    expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/test', { endpointId: id }));
    await receiver.waitFor('/down', 1);
    expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: 'org-check', organizationName: 'Checked org' }] }));
    expectSuccess(
      await call('/v2/organizations/documents/add', {
        organizationId: 'org-check',
        documents: [{ documentId: 'doc-private', documentName: 'Private', accessType: 'restricted' }],
      }),
    );
    expectSuccess(
      await call('/v2/auth/permissions/add', {
        user: { userId: 'grace' },
        permissions: { resources: [{ type: 'document', id: 'doc-private', organizationId: 'org-check', accessRole: 'viewer' }] },
      }),
    );
    const { context, page } = await signIn(owner);
    t.after(() => context.close());

    await open(page, 'Configs');
    const notifications = page.getByRole('region', { name: 'In-app notifications' });
    await notifications.getByLabel('Hold for (seconds)').fill('5');
    await notifications.getByRole('button', { name: 'Save' }).click();
    await notifications.locator('.failure', { hasText: 'delaySeconds' }).waitFor();
    await notifications.getByLabel('Hold for (seconds)').fill('60');
    await notifications.getByRole('button', { name: 'Save' }).click();
    await notifications.locator('.done').waitFor();
    const stored = await api(owner, '/v2/workspace/notificationconfig/get', {});
    assert.equal(stored.notificationServiceConfig.delayConfig.delaySeconds, 60);

    await open(page, 'Delivery health');
    await page.getByRole('row', { name: new RegExp(receiver.url('/down').replace(/[.:/]/g, '\\$&')) }).waitFor();
    assert.match(await page.getByRole('row', { name: /down/ }).innerText(), /failing[\s\S]*503/);
    await screenshot(page, 'delivery-health');

    await open(page, 'Directory');
    await page.getByRole('link', { name: 'Checked org' }).click();
    const checker = page.getByRole('region', { name: 'Permission checker' });
    await checker.getByLabel('User id').fill('grace');
    await checker.getByLabel('Document id').fill('doc-private');
    await checker.getByRole('button', { name: 'Check access' }).click();
    await checker.getByText('Yes: viewer').waitFor();
    await checker.getByText('A grant on the document itself: viewer.').waitFor();
    await checker.getByLabel('User id').fill('stranger');
    await checker.getByRole('button', { name: 'Check access' }).click();
    await checker.getByText('No access').waitFor();
    await screenshot(page, 'permission-checker');
  });

  it('every screen passes an automated accessibility check, in light and dark mode, on a laptop and a phone, by keyboard', async (t) => {
    const owner = await createKey(app);
    const call = agentFor(app, owner);
    const { id } = await advancedEndpoint(call, receiver.url('/a11y'));
    expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/test', { endpointId: id }));
    await receiver.waitFor('/a11y', 1);
    expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: 'org-a11y', organizationName: 'Accessible org' }] }));
    expectSuccess(await call('/v2/organizations/documents/add', { organizationId: 'org-a11y', documents: [{ documentId: 'doc-1', documentName: 'Plan' }] }));
    expectSuccess(await call('/v2/users/add', { organizationId: 'org-a11y', users: [{ userId: 'ada', name: 'Ada', email: 'ada@example.com' }] }));

    const screens = ['Overview', 'Allowed domains', 'Configs', 'Webhook endpoints', 'Message log', 'Delivery health', 'Activity log', 'Directory'];
    for (const mode of [
      { colorScheme: 'light' as const, viewport: { width: 1280, height: 900 } },
      { colorScheme: 'dark' as const, viewport: { width: 390, height: 844 } },
    ]) {
      const { context, page } = await signIn(owner, mode);
      t.after(() => context.close());
      for (const title of screens) {
        await open(page, title);
        if (title === 'Directory') {
          await page.getByRole('link', { name: 'Accessible org' }).click();
          await see(page, 'Plan');
          await settled(page);
        }
        if (title === 'Activity log') {
          await page.getByLabel('Organization id').fill('org-a11y');
          await page.getByRole('button', { name: 'Show activities' }).click();
          await settled(page);
        }
        await assertAccessible(page, `${title} (${mode.colorScheme}, ${mode.viewport.width} px)`);
        // Nothing runs off the side of a phone's screen.
        const overflowing = await page.evaluate(() =>
          [...document.querySelectorAll('body *')]
            .filter((element: any) => element.getBoundingClientRect().right > window.innerWidth + 1 && !element.closest('.card, .side'))
            .map((element: any) => `${element.tagName.toLowerCase()}.${element.className}`),
        );
        assert.deepEqual(overflowing, [], `${title} fits ${mode.viewport.width} px (wide tables scroll inside their card)`);
        if (mode.colorScheme === 'light') await screenshot(page, title.toLowerCase().replace(/\s+/g, '-'));
        else if (title === 'Overview') await screenshot(page, 'overview-phone-dark');
      }
      // The keyboard: on a fresh page the first Tab reaches the skip link, which moves focus to the content.
      await page.reload();
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
    }
    const signedOut = await browser.newContext();
    t.after(() => signedOut.close());
    const signInPage = await signedOut.newPage();
    await signInPage.goto(`${base}/console`);
    await signInPage.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await assertAccessible(signInPage, 'sign-in');
    await screenshot(signInPage, 'sign-in');
  });

  async function api(owner: TestKey, path: string, data: Record<string, unknown>) {
    return expectSuccess(await agentFor(app, owner)(path, data)).data;
  }

  async function eventuallyMessage(owner: TestKey, endpointId: string, messageId: string, status: string) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const messages = (await api(owner, '/v2/workspace/advancedwebhook/messages/get', { endpointId })).messages as { messageId: string; status: string }[];
      const message = messages.find((m) => m.messageId === messageId);
      if (message?.status === status) return message;
      if (Date.now() > deadline) throw new Error(`message ${messageId} is ${message?.status}, not ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
});

/** What page scripts could read: cookies (HttpOnly ones are not), and both web storages. */
function pageReadable(page: Page) {
  return page.evaluate(() => ({ cookie: document.cookie, local: localStorage.length, session: sessionStorage.length }));
}

/** An instant as the page's `datetime-local` input takes it, in the browser's own zone. */
function localInput(page: Page, epochMs: number): Promise<string> {
  return page.evaluate((ms) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19), epochMs);
}

/** Presses the message log's Refresh until `check` counts something (the delivery worker's outcome). */
async function refreshUntil(page: Page, check: () => Promise<number>) {
  const deadline = Date.now() + 10_000;
  while ((await check()) === 0) {
    if (Date.now() > deadline) throw new Error('the message log never showed it');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.waitForTimeout(100);
  }
}

function verifies(secret: string, hook: { body: string; headers: Record<string, unknown> }): boolean {
  try {
    new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

const WCAG_A_AND_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * axe's WCAG A and AA rules on the page as it is. `AxeBuilder` injects axe-core into every frame
 * on each call, about a second here against 0.05-0.2 s for the run itself; the console is one
 * page without frames, so once axe is in it (until a reload), later screens run it directly, with
 * the same rules. A page with frames always goes through `AxeBuilder`.
 */
async function assertAccessible(page: Page, where: string) {
  type Violation = { id: string; impact?: string | null; help: string; nodes: { target: unknown[] }[] };
  const injected = await page.evaluate(() => typeof window.axe?.run === 'function' && document.querySelectorAll('iframe, frame').length === 0);
  const violations: Violation[] = injected
    ? await page.evaluate(
        async (values) =>
          ((await window.axe.run(document, { runOnly: { type: 'tag', values } })) as { violations: Violation[] }).violations.map(
            ({ id, impact, help, nodes }) => ({
              id,
              impact,
              help,
              nodes: nodes.map(({ target }) => ({ target })),
            }),
          ),
        WCAG_A_AND_AA,
      )
    : (await new AxeBuilder({ page: page as never }).withTags(WCAG_A_AND_AA).analyze()).violations;
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    [],
    `accessibility of ${where}`,
  );
}

/** A one-page HTTP server on a loopback port: another site's page. */
async function serve(html: (port: number) => string): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html((server.address() as AddressInfo).port));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

export type { BrowserContext };
