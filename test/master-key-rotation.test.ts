// @testScope engine: the rotation is SQL over each engine's own transaction; the HTTP adapter is irrelevant to it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteDatabase } from '../src/database/sqlite-driver.js';
import pg from 'pg';
import { Secrets } from '../src/common/secrets.js';
import { eventually, startApp, type TestApp } from './helpers/app.js';
import { ownDatabase, type OwnDatabase } from './helpers/database.js';
import { runCli } from '../src/cli/run.js';
import { advancedEndpoint } from './helpers/webhooks.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';

const postgres = Boolean(process.env.DATABASE_URL);
/** More recorded mails than one batch of the rotation (200), so it reports progress. */
const BULK_MAILS = 450;

/**
 * Runs the admin CLI with exactly these variables, in this process (`runCli`, all `cli.ts` does
 * but set the exit code: a process start costs 2 s of CPU loading the app; test/cli.test.ts checks
 * the process's side): its stdout, or a rejection with the exit code and stderr.
 */
async function cli(env: Record<string, string | undefined>, ...args: string[]): Promise<string> {
  const output = { stdout: '', stderr: '' };
  const streams = { out: (text: string) => void (output.stdout += text), err: (text: string) => void (output.stderr += text) };
  const code = await runCli(args, { env: (name) => env[name], streams, logger: false });
  if (code !== 0) throw Object.assign(new Error(`exit ${code}: ${output.stderr}`), { code, stderr: output.stderr });
  return output.stdout;
}

/** Asserts the CLI exits 1 with stderr matching every pattern. */
async function refused(run: Promise<string>, ...patterns: RegExp[]): Promise<string> {
  let stderr = '';
  await assert.rejects(run, (error: { code?: number; stderr?: string }) => {
    assert.equal(error.code, 1, error.stderr);
    stderr = error.stderr ?? '';
    return true;
  });
  for (const pattern of patterns) assert.match(stderr, pattern);
  return stderr;
}

/** Runs SQL on the suite's database with a connection of its own (no app running): the rows. */
async function query<T = Record<string, unknown>>(database: { url?: string; file: string }, sql: string): Promise<T[]> {
  if (database.url) {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  }
  const db = new SqliteDatabase(database.file);
  try {
    const statement = db.prepare(sql);
    return (statement.reader ? statement.all() : (statement.run(), [])) as T[];
  } finally {
    db.close();
  }
}

/** Every stored value under the master key, and the keyed hashes, as they are in the database. */
async function storedSecrets(database: { url?: string; file: string }) {
  return {
    workspaces: await query<{ id: string; auth_token_enc: string; auth_token_hash: string }>(
      database,
      'SELECT id, auth_token_enc, auth_token_hash FROM workspace ORDER BY id',
    ),
    tokens: await query<{ id: string; token_enc: string; token_hash: string }>(
      database,
      'SELECT id, token_enc, token_hash FROM api_key_auth_token ORDER BY id',
    ),
    keys: await query<{ id: string; email_config: string; webhook_config: string; settings: string }>(
      database,
      'SELECT id, email_config, webhook_config, settings FROM api_key ORDER BY id',
    ),
    endpoints: await query<{ id: string; secret_enc: string; previous_secret_enc: string | null }>(
      database,
      'SELECT id, secret_enc, previous_secret_enc FROM webhook_endpoint ORDER BY id',
    ),
    mails: await query<{ id: string; content_enc: string }>(database, 'SELECT id, content_enc FROM outgoing_mail ORDER BY id'),
    sessions: await query<{ session_hash: string }>(database, 'SELECT session_hash FROM console_session ORDER BY session_hash'),
    loginLinks: await query<{ token_hash: string; used_at: unknown }>(database, 'SELECT token_hash, used_at FROM login_token ORDER BY token_hash'),
  };
}

describe('master key rotation (master-key rotate)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-rekey-'));
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const [oldSecrets, newSecrets] = [Secrets.fromKey(oldKey), Secrets.fromKey(newKey)];
  let own: OwnDatabase;
  let database: { url?: string; file: string };
  let env: (masterKey: Buffer, extra?: Record<string, string>) => Record<string, string | undefined>;
  const start = (masterKey: Buffer) => startApp({ ...env(masterKey), LOG_LEVEL: 'silent' });

  let key: TestKey;
  let endpoint: { id: string; secret: string; previousSecret: string };
  let userJwt: string;
  let consoleCookie: string;
  let unusedLoginToken: string;
  let views: Record<string, unknown>;
  let mailPlaintexts: string[];

  before(async () => {
    // A database of the suite's own on PostgreSQL: a rotation rewrites every row of the database.
    own = await ownDatabase();
    database = { url: own.url, file: join(dataDir, 'svc.sqlite') };
    env = (masterKey, extra = {}) => ({
      DATA_DIR: dataDir,
      SQLITE_FILE: database.file,
      DATABASE_URL: own.url,
      MASTER_KEY: masterKey.toString('base64'),
      ...extra,
    });
    const app = await start(oldKey);
    try {
      key = await createKey(app);
      const call = agentFor(app, key);
      expectSuccess(
        await call('/v2/workspace/emailconfig/update', { useEmailService: true, emailServiceConfig: { type: 'sendgrid', apiKey: 'SG.rotation-provider-key' } }),
      );
      expectSuccess(await call('/v2/workspace/webhookconfig/update', { useWebhookService: true, webhookServiceConfig: { authToken: 'hook-token-rotation' } }));
      expectSuccess(
        await call('/v2/workspace/apikeyconfig/update', { aiModelApiKey: [{ provider: 'openai', customerApiKey: 'sk-openai-rotation-0123456789' }] }),
      );
      // An endpoint whose secret was rotated keeps the previous one (previous_secret_enc) for an hour.
      const created = await advancedEndpoint(call, 'https://hooks.example.com/rotation');
      const rotated = expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/secret/rotate', { endpointId: created.id, overlapSeconds: 3600 })).data;
      endpoint = { id: created.id, secret: rotated.secret, previousSecret: created.secret };
      userJwt = expectSuccess(
        await call('/v2/auth/generate_token', { userId: 'ana', userProperties: { name: 'Ana', email: 'ana@example.com' }, permissions: { resources: [] } }),
      ).data.token;
      expectSuccess(await call('/v2/auth/token/verify', { token: userJwt }));

      // Two login links, kept (no SMTP_URL) in outgoing_mail, encrypted: one opens a console session, one stays unused.
      for (let i = 0; i < 2; i++) {
        expectSuccess(
          await app.post('/v2/workspace/email/send-login-link', { data: { email: key.ownerEmail, continueUrl: 'http://localhost:8080/console/' } }),
        );
        await eventually(
          () => query(database, 'SELECT id FROM outgoing_mail'),
          (rows) => rows.length > i,
        );
      }
      const kept = await query<{ content_enc: string }>(database, 'SELECT content_enc FROM outgoing_mail ORDER BY id');
      const [signIn, unused] = kept.map((row) => /token=([\w-]+)/.exec(oldSecrets.decrypt(row.content_enc))![1]!);
      unusedLoginToken = unused!;
      const session = await app.post('/v2/console/session/create', { data: { token: signIn } });
      expectSuccess(session);
      consoleCookie = String(session.headers['set-cookie']).split(';')[0]!;
      expectSuccess(await app.post('/v2/console/session/get', { data: {} }, { cookie: consoleCookie }));

      views = await readViews(app);
    } finally {
      await app.close();
    }
    // Many recorded mails, sealed under the current key as the mailer seals them.
    const rows = Array.from({ length: BULK_MAILS }, (_, i) => {
      const content = oldSecrets.encrypt(JSON.stringify({ text: `bulk mail ${i}` }));
      return `('msg_bulk_${String(i).padStart(4, '0')}', 'bulk@example.com', 'Bulk ${i}', '${content}', 'log', 'kept', NULL, ${Date.now()})`;
    });
    await query(database, `INSERT INTO outgoing_mail (id, recipient, subject, content_enc, transport, status, error, created_at) VALUES ${rows.join(', ')}`);
    mailPlaintexts = (await storedSecrets(database)).mails.map((mail) => oldSecrets.decrypt(mail.content_enc));
    assert.equal(mailPlaintexts.length, BULK_MAILS + 2);
  });

  after(async () => {
    await own?.drop();
  });

  /** What the operations answer about the key's secrets: the same before and after a rotation. */
  async function readViews(app: TestApp): Promise<Record<string, unknown>> {
    const call = agentFor(app, key);
    return {
      workspace: expectSuccess(await app.post('/v2/workspace/get', { data: {} }, key.workspaceHeaders)).data.authToken,
      authTokens: expectSuccess(await app.post('/v2/workspace/authtokens/get', { data: { apiKey: key.apiKey } }, key.workspaceHeaders)).data.authTokens,
      email: expectSuccess(await call('/v2/workspace/emailconfig/get', {})).data,
      webhook: expectSuccess(await call('/v2/workspace/webhookconfig/get', {})).data,
      aiModels: expectSuccess(await call('/v2/workspace/apikeyconfig/get', {})).data.aiModelsConfig,
      endpointSecret: expectSuccess(await call('/v2/workspace/advancedwebhook/endpoints/secret/get', { endpointId: endpoint.id })).data.secret,
    };
  }

  it('refuses a rotation whose current key does not decrypt every value, naming each table and column, and stores nothing', async () => {
    const before = await storedSecrets(database);
    const stderr = await refused(
      cli(env(randomBytes(32), { NEW_MASTER_KEY: newKey.toString('base64') }), 'master-key', 'rotate'),
      /FAILED_PRECONDITION.*does not decrypt \d+ stored values; nothing was changed/,
      /workspace\.auth_token_enc: 1 value \(row /,
      /api_key_auth_token\.token_enc: 1 value/,
      /api_key\.email_config \(emailServiceConfig\.apiKeyEnc\): 1 value/,
      /api_key\.webhook_config \(webhookServiceConfig\.authTokenEnc\): 1 value/,
      /api_key\.settings \(aiModelKeysEnc\): 1 value/,
      /webhook_endpoint\.secret_enc: 1 value/,
      /webhook_endpoint\.previous_secret_enc: 1 value/,
      new RegExp(`outgoing_mail\\.content_enc: ${BULK_MAILS + 2} values \\(rows msg_\\w+, msg_\\w+, msg_\\w+, …\\)`),
    );
    assert.doesNotMatch(stderr, new RegExp(newKey.toString('base64').replace(/[+/]/g, '.')), 'no key is echoed');
    assert.deepEqual(await storedSecrets(database), before, 'nothing was written');
    // MASTER_KEY set: the new key must be given; the same key is no rotation.
    await refused(cli(env(oldKey), 'master-key', 'rotate'), /INVALID_ARGUMENT.*give the new key in NEW_MASTER_KEY/);
    await refused(cli(env(oldKey, { NEW_MASTER_KEY: oldKey.toString('base64') }), 'master-key', 'rotate'), /The new master key is the current one/);
    assert.deepEqual(await storedSecrets(database), before);
  });

  it('rolls everything back when it fails mid-way: the current key stays the valid one', async () => {
    const before = await storedSecrets(database);
    // The last table rewritten refuses updates: the workspaces, keys and endpoints were rewritten by then.
    const failing = postgres
      ? [
          `CREATE FUNCTION rekey_test_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$ LANGUAGE plpgsql`,
          'CREATE TRIGGER rekey_test_refuse BEFORE UPDATE ON outgoing_mail FOR EACH ROW EXECUTE FUNCTION rekey_test_refuse()',
        ]
      : [`CREATE TRIGGER rekey_test_refuse BEFORE UPDATE ON outgoing_mail BEGIN SELECT RAISE(ABORT, 'injected failure'); END`];
    for (const statement of failing) await query(database, statement);
    try {
      await refused(
        cli(env(oldKey, { NEW_MASTER_KEY: newKey.toString('base64') }), 'master-key', 'rotate'),
        /injected failure\nThe transaction was rolled back: nothing was changed, and the current master key stays the valid one/,
      );
    } finally {
      await query(database, 'DROP TRIGGER rekey_test_refuse' + (postgres ? ' ON outgoing_mail' : ''));
      if (postgres) await query(database, 'DROP FUNCTION rekey_test_refuse');
    }
    assert.deepEqual(await storedSecrets(database), before, 'every rewrite was rolled back');
    assert.match(await cli(env(oldKey), 'master-key', 'check'), /The current master key decrypts every stored secret/);
  });

  it('re-encrypts every secret and recomputes every hash in one transaction, with progress; ends what cannot be rehashed', async () => {
    const before = await storedSecrets(database);
    const output = await cli(env(oldKey, { NEW_MASTER_KEY: newKey.toString('base64') }), 'master-key', 'rotate');
    const total = BULK_MAILS + 2;
    for (const line of [
      `  checking outgoing_mail: 200/${total}`,
      `  checking outgoing_mail: ${total}/${total}`,
      `  rewriting outgoing_mail: 400/${total}`,
      `  rewriting outgoing_mail: ${total}/${total}`,
      'Committed.',
      '  workspace.auth_token_enc: 1',
      '  api_key_auth_token.token_enc: 1',
      '  api_key.email_config (emailServiceConfig.apiKeyEnc): 1',
      '  api_key.webhook_config (webhookServiceConfig.authTokenEnc): 1',
      '  api_key.settings (aiModelKeysEnc): 1',
      '  webhook_endpoint.secret_enc: 1',
      '  webhook_endpoint.previous_secret_enc: 1',
      `  outgoing_mail.content_enc: ${total}`,
      '  workspace.auth_token_hash: 1',
      '  api_key_auth_token.token_hash: 1',
      '  console_session: 1 console sessions (their owners sign in again)',
      '  login_token: 1 unused login links (ask for a new one)',
    ])
      assert.ok(output.split('\n').includes(line), `"${line}" in:\n${output}`);
    assert.match(output, /set MASTER_KEY to the new key on every instance, and restart them all/);
    assert.match(output, /user JWTs .* page tokens .* attachment download and upload links/);
    assert.ok(!output.includes(newKey.toString('base64')) && !output.includes(oldKey.toString('base64')), 'no key is printed');

    const stored = await storedSecrets(database);
    const [workspace] = stored.workspaces;
    assert.notEqual(workspace!.auth_token_enc, before.workspaces[0]!.auth_token_enc);
    assert.equal(newSecrets.decrypt(workspace!.auth_token_enc), key.workspaceToken);
    assert.equal(workspace!.auth_token_hash, newSecrets.lookupHash(key.workspaceToken));
    assert.throws(() => oldSecrets.decrypt(workspace!.auth_token_enc), 'the old key decrypts nothing any more');
    assert.equal(stored.tokens[0]!.token_hash, newSecrets.lookupHash(key.authToken));
    assert.equal(newSecrets.decrypt(stored.endpoints[0]!.previous_secret_enc!), endpoint.previousSecret);
    assert.deepEqual(
      stored.mails.map((mail) => newSecrets.decrypt(mail.content_enc)),
      mailPlaintexts,
      'every recorded mail, re-encrypted',
    );
    assert.deepEqual(stored.sessions, [], 'console sessions ended');
    assert.deepEqual(
      stored.loginLinks.map((link) => link.used_at !== null),
      [true],
      'the used login link stays (it tells the address was verified); the unused one ended',
    );
  });

  it('under the new key, the service takes the same credentials and answers the same secrets; client-held tokens end', async () => {
    const app = await start(newKey);
    try {
      assert.deepEqual(await readViews(app), views, 'workspace token and API-key token authenticate; configs, AI keys and the endpoint secret read the same');
      const call = agentFor(app, key);
      expectSuccess(await call('/v2/workspace/domains/get', {}));
      assert.notEqual((await call('/v2/auth/token/verify', { token: userJwt })).status, 200, 'a user JWT signed with the old key');
      expectError(await app.post('/v2/console/session/get', { data: {} }, { cookie: consoleCookie }), 401, 'UNAUTHENTICATED');
      expectError(await app.post('/v2/console/session/create', { data: { token: unusedLoginToken } }), 403, 'PERMISSION_DENIED');
    } finally {
      await app.close();
    }
  });

  it('under the old key, the service authenticates no one and decrypts nothing', async () => {
    const app = await start(oldKey);
    try {
      expectError(await app.post('/v2/workspace/get', { data: {} }, key.workspaceHeaders), 401, 'UNAUTHENTICATED');
      expectError(await agentFor(app, key)('/v2/workspace/domains/get', {}), 403, 'PERMISSION_DENIED', 'Invalid API key or auth token.');
    } finally {
      await app.close();
    }
    await refused(cli(env(oldKey), 'master-key', 'check'), /does not decrypt \d+ stored values/, /workspace\.auth_token_enc/);
  });

  it(
    'with the embedded default, generates the new key into DATA_DIR/master.key (replaced, mode 0600) and finishes an interrupted rotation',
    { skip: postgres && 'the embedded default is SQLite' },
    async () => {
      const folder = mkdtempSync(join(tmpdir(), 'svc-rekey-embedded-'));
      const embedded = { DATA_DIR: folder, SQLITE_FILE: join(folder, 'svc.sqlite'), DATABASE_URL: undefined, MASTER_KEY: undefined };
      const keyFile = join(folder, 'master.key');
      const staged = join(folder, 'master.key.next');
      const works = async (credentials: TestKey) => {
        const app = await startApp({ ...embedded, LOG_LEVEL: 'silent' });
        try {
          expectSuccess(await app.post('/v2/workspace/get', { data: {} }, credentials.workspaceHeaders));
          expectSuccess(await agentFor(app, credentials)('/v2/workspace/domains/get', {}));
        } finally {
          await app.close();
        }
      };
      const app = await startApp({ ...embedded, LOG_LEVEL: 'silent' });
      const owner = await createKey(app).finally(() => app.close());
      const original = readFileSync(keyFile, 'utf8');

      const output = await cli(embedded, 'master-key', 'rotate');
      assert.match(output, new RegExp(`${keyFile} now holds the new key \\(mode 0600\\)`));
      assert.match(output, /Restart the service/);
      const rotated = readFileSync(keyFile, 'utf8');
      assert.notEqual(rotated, original);
      assert.equal(Buffer.from(rotated.trim(), 'base64').length, 32);
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      assert.ok(!existsSync(staged), 'no staged key is left');
      assert.ok(!output.includes(rotated.trim()), 'the key is not printed');
      await works(owner);

      // A failure mid-way: nothing changes, and the staged key goes.
      await query(
        { file: embedded.SQLITE_FILE },
        `CREATE TRIGGER rekey_test_refuse BEFORE UPDATE ON api_key_auth_token BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
      );
      await refused(cli(embedded, 'master-key', 'rotate'), /injected failure/);
      await query({ file: embedded.SQLITE_FILE }, 'DROP TRIGGER rekey_test_refuse');
      assert.equal(readFileSync(keyFile, 'utf8'), rotated);
      assert.ok(!existsSync(staged), 'the staged key of a rotation that did not commit is removed');

      // Committed, but stopped before the rename: the key file still holds the old key, the staged file the new one.
      writeFileSync(keyFile, original, { mode: 0o600 });
      writeFileSync(staged, rotated, { mode: 0o600 });
      assert.match(await cli(embedded, 'master-key', 'rotate'), /That rotation had committed: .*master\.key now holds its key/);
      assert.equal(readFileSync(keyFile, 'utf8'), rotated);
      assert.ok(!existsSync(staged));
      await works(owner);

      // Stopped before committing: the staged key is stale, removed, and the rotation runs.
      writeFileSync(staged, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
      assert.match(await cli(embedded, 'master-key', 'rotate'), /that rotation did not commit, and its staged key was removed[\s\S]*Committed\./);
      assert.ok(![original, rotated].includes(readFileSync(keyFile, 'utf8')));
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      assert.ok(!existsSync(staged));
      await works(owner);
    },
  );
});
