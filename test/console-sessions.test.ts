import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, startApp, type TestApp } from './helpers/app.js';
import { SmtpReceiver } from './helpers/smtp-receiver.js';
import { createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';

const CSRF_REFUSED = 'Console request refused: it must come from the console itself, with its x-console-csrf header.';
const SESSION_REFUSED = 'Console session missing, expired or signed out.';

/** A signed-in console, as the browser holds it: the cookie (HttpOnly) and the CSRF token the page got. */
interface Console {
  cookie: string;
  csrf: string;
  setCookie: string;
  data: Record<string, any>;
}

describe('console sessions (issue 34)', () => {
  let app: TestApp;
  let smtp: SmtpReceiver;
  const clock = new ManualClock();

  before(async () => {
    smtp = await new SmtpReceiver().start();
    app = await startApp({ SMTP_URL: smtp.url, TRUST_PROXY: 'true', RATE_LIMIT_LOGIN_LINK: '1000', RATE_LIMIT_LOGIN_VERIFY: '1000' }, { clock });
  });
  after(async () => {
    await app.close();
    await smtp.stop();
  });

  /** Asks for a login link to the console and returns its token, as the mail carries it. */
  async function loginToken(email: string): Promise<string> {
    const before = smtp.mails.filter((m) => m.to.includes(email)).length;
    expectSuccess(await app.post('/v2/workspace/email/send-login-link', { data: { email, continueUrl: 'http://localhost:8080/console/' } }));
    let mails = smtp.mails.filter((m) => m.to.includes(email));
    for (let i = 0; mails.length <= before && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      mails = smtp.mails.filter((m) => m.to.includes(email));
    }
    const link = new URL(/http:\/\/localhost:8080\/console\/\S+/.exec(mails.at(-1)!.text)![0]);
    return link.searchParams.get('token')!;
  }

  async function signIn(key: TestKey, headers: Record<string, string> = {}): Promise<Console> {
    const response = await app.post('/v2/console/session/create', { data: { token: await loginToken(key.ownerEmail) } }, headers);
    const data = expectSuccess(response, 'Signed in.').data;
    const setCookie = String(response.headers['set-cookie']);
    return { cookie: setCookie.split(';')[0]!, csrf: data.csrfToken, setCookie, data };
  }

  const asConsole = (session: Console, extra: Record<string, string> = {}) => ({ cookie: session.cookie, 'x-console-csrf': session.csrf, ...extra });

  it('serves the console page and its hashed assets with a strict Content-Security-Policy, never framed', async () => {
    const page = await app.get('/console');
    assert.equal(page.status, 200);
    assert.match(page.headers['content-type'], /^text\/html/);
    assert.equal(
      page.headers['content-security-policy'],
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.match(page.text, /<meta name="header-product" content="svc" \/>/);
    assert.doesNotMatch(page.text, /<script>|<style>|\son\w+=/, 'no inline script or style');
    const script = /src="(\/console\/assets\/app-[\w-]+\.js)"/.exec(page.text)![1]!;
    const style = /href="(\/console\/assets\/app-[\w-]+\.css)"/.exec(page.text)![1]!;
    const js = await app.get(script);
    assert.equal(js.status, 200);
    assert.match(js.headers['content-type'], /^text\/javascript/);
    assert.match(js.headers['cache-control'], /immutable/);
    assert.equal(js.headers['content-security-policy'], page.headers['content-security-policy']);
    assert.match((await app.get(style)).headers['content-type'], /^text\/css/);
    const missing = await app.get('/console/assets/app-nothing.js');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.status, 'NOT_FOUND');
  });

  it('signs in with a login link: an HttpOnly, SameSite=Strict cookie, and workspaces without their auth tokens', async () => {
    const key = await createKey(app);
    const session = await signIn(key);
    assert.match(session.setCookie, /^console_session=[\w-]{40,}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    assert.equal(session.data.email, key.ownerEmail);
    assert.deepEqual(
      session.data.workspaces.map((w: { id: string; authToken: string }) => [w.id, w.authToken]),
      [[key.workspaceId, '']],
    );
    assert.ok(session.csrf.length >= 40);
    assert.ok(!session.cookie.includes(session.csrf), 'the CSRF token is not the cookie');
    // Behind a trusted proxy that says HTTPS, the cookie is Secure.
    const secure = await signIn(key, { 'x-forwarded-proto': 'https' });
    assert.match(secure.setCookie, /; Secure/);
  });

  it('a login token opens one session, however many browsers race with it', async () => {
    const key = await createKey(app);
    const token = await loginToken(key.ownerEmail);
    const answers = await Promise.all(Array.from({ length: 6 }, () => app.post('/v2/console/session/create', { data: { token } })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 403, 403, 403, 403, 403]);
    for (const refused of answers.filter((a) => a.status !== 200)) expectError(refused, 403, 'PERMISSION_DENIED', 'Invalid or expired login token.');
  });

  it('session/get answers the session without its CSRF token; a missing or made-up cookie is refused', async () => {
    const key = await createKey(app);
    const session = await signIn(key);
    const got = expectSuccess(await app.post('/v2/console/session/get', { data: {} }, { cookie: session.cookie }), 'Session retrieved.').data;
    assert.equal(got.email, key.ownerEmail);
    assert.equal(got.csrfToken, session.csrf);
    expectError(await app.post('/v2/console/session/get', { data: {} }), 401, 'UNAUTHENTICATED', SESSION_REFUSED);
    expectError(await app.post('/v2/console/session/get', { data: {} }, { cookie: 'console_session=made-up' }), 401, 'UNAUTHENTICATED', SESSION_REFUSED);
  });

  it('calls workspace and API-key operations with the cookie, as their owner, under the same rules', async () => {
    const key = await createKey(app);
    const session = await signIn(key);
    const workspace = expectSuccess(
      await app.post('/v2/workspace/get', { data: {} }, asConsole(session, { 'x-svc-workspace-id': key.workspaceId })),
      'Workspace retrieved successfully',
    ).data;
    assert.equal(workspace.id, key.workspaceId);
    assert.equal(workspace.authToken, '', 'the workspace token never reaches the page');
    const tokens = expectSuccess(
      await app.post('/v2/workspace/authtokens/get', { data: { apiKey: key.apiKey } }, asConsole(session, { 'x-svc-workspace-id': key.workspaceId })),
    ).data.authTokens;
    assert.equal(tokens[0].token, `${key.authToken.slice(0, 8)}…`);
    const reset = expectSuccess(
      await app.post('/v2/workspace/authtoken/reset', { data: { apiKey: key.apiKey } }, asConsole(session, { 'x-svc-workspace-id': key.workspaceId })),
    ).data.newAuthToken.token;
    expectSuccess(await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-svc-api-key': key.apiKey, 'x-svc-auth-token': reset }));
    // API-key operations: the key in its header, the session in place of its token.
    const keyHeaders = asConsole(session, { 'x-svc-api-key': key.apiKey });
    expectSuccess(await app.post('/v2/workspace/domains/add', { data: { domains: ['console.example.com'] } }, keyHeaders));
    assert.deepEqual(expectSuccess(await app.post('/v2/workspace/domains/get', { data: {} }, keyHeaders)).data.allowedDomains, ['console.example.com']);
    // The operation's own validation answers as it does for every client.
    expectError(await app.post('/v2/workspace/domains/add', { data: { domains: 'x' } }, keyHeaders), 400, 'INVALID_ARGUMENT', /domains/);
  });

  it('refuses a request without the CSRF token, with a wrong one, or from another site', async () => {
    const key = await createKey(app);
    const session = await signIn(key);
    const keyHeaders = { cookie: session.cookie, 'x-svc-api-key': key.apiKey };
    expectError(await app.post('/v2/workspace/domains/add', { data: { domains: ['a.example.com'] } }, keyHeaders), 403, 'PERMISSION_DENIED', CSRF_REFUSED);
    expectError(
      await app.post(
        '/v2/workspace/domains/add',
        { data: { domains: ['a.example.com'] } },
        { ...keyHeaders, 'x-console-csrf': `${session.csrf.slice(0, -2)}xx` },
      ),
      403,
      'PERMISSION_DENIED',
      CSRF_REFUSED,
    );
    const fromElsewhere: Record<string, string>[] = [{ origin: 'https://attacker.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }];
    for (const headers of fromElsewhere) {
      expectError(
        await app.post('/v2/workspace/domains/add', { data: { domains: ['a.example.com'] } }, asConsole(session, { ...keyHeaders, ...headers })),
        403,
        'PERMISSION_DENIED',
        CSRF_REFUSED,
      );
    }
    expectError(await app.post('/v2/console/session/delete', { data: {} }, { cookie: session.cookie }), 403, 'PERMISSION_DENIED', CSRF_REFUSED);
    // Same-origin requests (the console's own) pass.
    const sameOrigin = asConsole(session, { ...keyHeaders, origin: app.url, 'sec-fetch-site': 'same-origin' });
    assert.deepEqual(expectSuccess(await app.post('/v2/workspace/domains/get', { data: {} }, sameOrigin)).data.allowedDomains, []);
  });

  it("never reaches another owner's workspace or key by editing ids", async () => {
    const mine = await createKey(app);
    const theirs = await createKey(app);
    const session = await signIn(mine);
    expectError(
      await app.post('/v2/workspace/apikeys/get', { data: {} }, asConsole(session, { 'x-svc-workspace-id': theirs.workspaceId })),
      403,
      'PERMISSION_DENIED',
      'Invalid workspace credentials.',
    );
    expectError(
      await app.post('/v2/workspace/get', { data: {} }, asConsole(session, { 'x-svc-workspace-id': theirs.workspaceId })),
      404,
      'NOT_FOUND',
      'Workspace not found.',
    );
    expectError(
      await app.post('/v2/workspace/domains/get', { data: {} }, asConsole(session, { 'x-svc-api-key': theirs.apiKey })),
      403,
      'PERMISSION_DENIED',
      'Invalid API key or auth token.',
    );
    // Their key named from my workspace: the key operation checks the key against the workspace.
    expectError(
      await app.post('/v2/workspace/authtoken/reset', { data: { apiKey: theirs.apiKey } }, asConsole(session, { 'x-svc-workspace-id': mine.workspaceId })),
      404,
      'NOT_FOUND',
    );
    // Their data is untouched.
    expectSuccess(await app.post('/v2/workspace/domains/get', { data: {} }, theirs.headers));
  });

  it('signing out ends the session at once and clears the cookie; a session also ends after its lifetime', async () => {
    const key = await createKey(app);
    const session = await signIn(key);
    const out = await app.post('/v2/console/session/delete', { data: {} }, asConsole(session));
    expectSuccess(out, 'Signed out.');
    assert.match(String(out.headers['set-cookie']), /^console_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict$/);
    expectError(await app.post('/v2/console/session/get', { data: {} }, { cookie: session.cookie }), 401, 'UNAUTHENTICATED', SESSION_REFUSED);
    expectError(
      await app.post('/v2/workspace/domains/get', { data: {} }, asConsole(session, { 'x-svc-api-key': key.apiKey })),
      401,
      'UNAUTHENTICATED',
      SESSION_REFUSED,
    );

    const later = await signIn(key);
    clock.advance(12 * 3600 * 1000 - 1000);
    expectSuccess(await app.post('/v2/console/session/get', { data: {} }, { cookie: later.cookie }));
    clock.advance(1000);
    expectError(await app.post('/v2/console/session/get', { data: {} }, { cookie: later.cookie }), 401, 'UNAUTHENTICATED', SESSION_REFUSED);
  });
});
