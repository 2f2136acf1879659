import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { Secrets } from '../src/common/secrets.js';
import { ManualClock, startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';

/** The claims part of a JWT, read without verifying (what a front end can see). */
function payloadOf(token: string): Record<string, unknown> {
  const [, payload] = token.split('.');
  return JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('user tokens for front ends (upstream generate_token and token/get)', () => {
  const clock = new ManualClock();
  let app: TestApp;
  let key: TestKey;
  let call: ReturnType<typeof agentFor>;
  before(async () => {
    app = await startApp({}, { clock });
    key = await createKey(app);
    call = agentFor(app, key);
  });
  after(() => app.close());

  const resources = [
    { type: 'organization', id: 'org_123', accessRole: 'viewer' },
    { type: 'document', id: 'doc_456', organizationId: 'org_123', accessRole: 'editor', expiresAt: 1640995200 },
  ];

  it('generate_token mints a 48-hour HS256 JWT carrying the user and the resources; verify reads it back', async () => {
    const generated = expectSuccess(
      await call('/v2/auth/generate_token', { userId: 'user123', userProperties: { name: 'John Doe', email: 'john@example.com' }, permissions: { resources } }),
      'Token generated successfully.',
    );
    const { token } = generated.data as { token: string };
    assert.deepEqual(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')), { alg: 'HS256', typ: 'JWT' });
    const payload = payloadOf(token);
    assert.equal(payload.sub, 'user123');
    assert.equal(payload.aud, key.apiKey);
    assert.equal(Number(payload.exp) - Number(payload.iat), 48 * 3600);
    const claims = expectSuccess(await call('/v2/auth/token/verify', { token }), 'Token verified successfully.').data;
    assert.deepEqual(claims, {
      userId: 'user123',
      apiKey: key.apiKey,
      userProperties: { isAdmin: false, name: 'John Doe', email: 'john@example.com' },
      permissions: { resources },
      iat: payload.iat,
      exp: payload.exp,
    });
  });

  it('token/get: v2 with the key in headers, v1 with it in the body; both verify', async () => {
    const v2 = expectSuccess(
      await call('/v2/auth/token/get', { userId: 'u2', userProperties: { organizationId: 'org_1', isAdmin: true } }),
      'Token generated successfully.',
    ).data.token as string;
    const v1Answer = await app.post('/v1/auth/token/get', {
      data: { apiKey: key.apiKey, authToken: key.authToken, userId: 'u1', userProperties: { email: 'u1@example.com' } },
    });
    const v1 = expectSuccess(v1Answer, 'Token generated successfully.').data.token as string;
    assert.deepEqual(expectSuccess(await call('/v2/auth/token/verify', { token: v2 })).data.userProperties, { isAdmin: true, organizationId: 'org_1' });
    assert.deepEqual(expectSuccess(await call('/v2/auth/token/verify', { token: v1 })).data.userProperties, { isAdmin: false, email: 'u1@example.com' });
    expectError(
      await app.post('/v1/auth/token/get', { data: { apiKey: key.apiKey, authToken: 'wrong', userId: 'u1' } }),
      403,
      'PERMISSION_DENIED',
      'Invalid API key or auth token.',
    );
  });

  it('refuses a token of another key, a tampered one and an expired one', async () => {
    const token = expectSuccess(await call('/v2/auth/token/get', { userId: 'u3' })).data.token as string;
    const other = agentFor(app, await createKey(app));
    expectError(await other('/v2/auth/token/verify', { token }), 403, 'PERMISSION_DENIED', 'Invalid or expired token.');
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...payloadOf(token), userId: 'admin' })).toString('base64url');
    expectError(await call('/v2/auth/token/verify', { token: `${header}.${forged}.${signature}` }), 403, 'PERMISSION_DENIED', 'Invalid or expired token.');
    expectError(await call('/v2/auth/token/verify', { token: `${header}.${payload}.` }), 403, 'PERMISSION_DENIED');
    expectError(await call('/v2/auth/token/verify', { token: 'not a jwt' }), 403, 'PERMISSION_DENIED');
    clock.advance(48 * 3600 * 1000 + 1000);
    expectError(await call('/v2/auth/token/verify', { token }), 403, 'PERMISSION_DENIED', 'Invalid or expired token.');
  });

  it('verifies strictly: only the spelling minted, every claim the service writes, a lifetime of at most 48 hours begun by now', async () => {
    const token = expectSuccess(await call('/v2/auth/token/get', { userId: 'u4' })).data.token as string;
    expectSuccess(await call('/v2/auth/token/verify', { token }));
    const refused = async (variant: string, why: string) => {
      const answer = await call('/v2/auth/token/verify', { token: variant });
      assert.equal(answer.status, 403, `${why} (${JSON.stringify(variant)}): ${JSON.stringify(answer.body)}`);
      expectError(answer, 403, 'PERMISSION_DENIED', 'Invalid or expired token.');
    };
    // Other spellings of the same token.
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const lastBitsFlipped = (segment: string) => {
      // The last character of a segment whose length is not a multiple of 4 carries unused bits.
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const last = alphabet.indexOf(segment.at(-1)!);
      return segment.slice(0, -1) + alphabet[last ^ 1];
    };
    for (const variant of [
      `${token}\n`,
      `${token}\t`,
      ` ${token}`,
      `${token}=`,
      `${header}.${payload}.${signature}==`,
      `${header}.${payload}.${lastBitsFlipped(signature)}`,
    ]) {
      await refused(variant, 'a respelling');
    }
    // Signed with the real key, but not as the service mints.
    const key32 = app.app.get(Secrets).userTokenKey;
    const now = Math.floor(clock.now() / 1000);
    const claims = { userId: 'u4', apiKey: key.apiKey, userProperties: { isAdmin: false } };
    const signed = (body: Record<string, unknown>, build: (jwt: SignJWT) => SignJWT) =>
      build(new SignJWT(body).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuer('collab-backend')).sign(key32);
    const minted = (jwt: SignJWT) => jwt.setAudience(key.apiKey).setSubject('u4');
    assert.ok(
      (
        await call('/v2/auth/token/verify', {
          token: await signed(claims, (jwt) =>
            minted(jwt)
              .setIssuedAt(now)
              .setExpirationTime(now + 3600),
          ),
        })
      ).status === 200,
      'the well-formed control verifies',
    );
    const cases: [string, Promise<string>][] = [
      ['no exp', signed(claims, (jwt) => minted(jwt).setIssuedAt(now))],
      [
        'exp centuries ahead',
        signed(claims, (jwt) =>
          minted(jwt)
            .setIssuedAt(now)
            .setExpirationTime(now + 300 * 365 * 86400),
        ),
      ],
      ['no iat', signed(claims, (jwt) => minted(jwt).setExpirationTime(now + 3600))],
      [
        'iat in the future',
        signed(claims, (jwt) =>
          minted(jwt)
            .setIssuedAt(now + 3600)
            .setExpirationTime(now + 7200),
        ),
      ],
      [
        'an aud array',
        signed(claims, (jwt) =>
          jwt
            .setAudience([key.apiKey, 'other'])
            .setSubject('u4')
            .setIssuedAt(now)
            .setExpirationTime(now + 3600),
        ),
      ],
      [
        'no userId',
        signed({ apiKey: key.apiKey, userProperties: { isAdmin: false } }, (jwt) =>
          minted(jwt)
            .setIssuedAt(now)
            .setExpirationTime(now + 3600),
        ),
      ],
      [
        'a userId other than sub',
        signed({ ...claims, userId: 'admin' }, (jwt) =>
          minted(jwt)
            .setIssuedAt(now)
            .setExpirationTime(now + 3600),
        ),
      ],
      [
        'no userProperties',
        signed({ userId: 'u4', apiKey: key.apiKey }, (jwt) =>
          minted(jwt)
            .setIssuedAt(now)
            .setExpirationTime(now + 3600),
        ),
      ],
    ];
    for (const [why, variant] of cases) await refused(await variant, why);
  });

  it('v1 token/get counts wrong credentials per client address: past the limit every attempt is refused with 429 until the minute ends', async () => {
    // Counted in Redis when the run has one (CI's), shared by instances; else in this process.
    const limited = await startApp({ RATE_LIMIT_TOKEN_FAILURES: '3', REDIS_URL: process.env.REDIS_URL }, { clock });
    try {
      const owner = await createKey(limited);
      const attempt = (authToken: string) => limited.post('/v1/auth/token/get', { data: { apiKey: owner.apiKey, authToken, userId: 'u1' } });
      // Right credentials are never counted.
      for (let i = 0; i < 5; i++) {
        const minted = await attempt(owner.authToken);
        expectSuccess(minted);
        assert.equal(minted.headers['ratelimit'], undefined, 'a success does not count');
      }
      // The answers that count carry the counter's RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11).
      for (let i = 0; i < 3; i++) {
        const failed = await attempt(`wrong-${i}`);
        expectError(failed, 403, 'PERMISSION_DENIED', 'Invalid API key or auth token.');
        assert.equal(failed.headers['ratelimit-policy'], '"tokenFailures";q=3;w=60');
        assert.match(String(failed.headers['ratelimit']), new RegExp(`^"tokenFailures";r=${2 - i};t=([1-9]|[1-5]\\d|60)$`));
      }
      const refused = await attempt('wrong-3');
      expectError(refused, 429, 'RESOURCE_EXHAUSTED', 'Rate limit exceeded for this endpoint. Try again later.');
      assert.equal(refused.headers['retry-after'], '60');
      assert.equal(refused.headers['ratelimit-policy'], '"tokenFailures";q=3;w=60');
      assert.equal(refused.headers['ratelimit'], '"tokenFailures";r=0;t=60');
      // Right ones too, while the window lasts: a guess that hits learns nothing.
      expectError(await attempt(owner.authToken), 429, 'RESOURCE_EXHAUSTED');
    } finally {
      await limited.close();
    }
  });

  it('refuses bad requests naming the field', async () => {
    expectError(
      await call('/v2/auth/generate_token', {
        userId: 'u',
        userProperties: { name: 'N', email: 'n@example.com' },
        permissions: { resources: [{ type: 'document', id: 'd' }] },
      }),
      400,
      'INVALID_ARGUMENT',
      /permissions\.resources\[0\]\.organizationId is required/,
    );
    expectError(
      await call('/v2/auth/generate_token', { userId: 'u', userProperties: { name: 'N' }, permissions: { resources: [] } }),
      400,
      'INVALID_ARGUMENT',
      /userProperties\.email/,
    );
    expectError(await call('/v2/auth/token/get', { userId: 'u', userProperties: { isAdmin: 'yes' } }), 400, 'INVALID_ARGUMENT', /userProperties\.isAdmin/);
    expectError(await app.post('/v1/auth/token/get', { data: { userId: 'u' } }), 400, 'INVALID_ARGUMENT', /apiKey/);
  });
});
