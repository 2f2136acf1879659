// @testScope engine: the admin CLI runs without the HTTP adapter; its HTTP calls only check what the commands stored.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../src/cli/run.js';
import { ApiKeyStore } from '../src/workspace/api-key-store.js';
import { startApp, type TestApp } from './helpers/app.js';
import { ownDatabase } from './helpers/database.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { advancedEndpoint, commentActivity, waitForStatus } from './helpers/webhooks.js';
import { agentFor, createKey, expectError, expectSuccess } from './factories/workspace.js';

const CLI = new URL('../src/cli.js', import.meta.url).pathname;
const execute = promisify(execFile);

/** What a run of the CLI ended with. */
interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

describe('admin CLI', { concurrency: true }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    DATA_DIR: dataDir,
    SQLITE_FILE: join(dataDir, 'svc.sqlite'),
    MASTER_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  };
  /**
   * A run in this process: `runCli`, all `cli.ts` does but set the process's exit code, on the
   * same modules and database (a fresh app each run, closed after it), its output captured:
   * about 0.15 s of CPU, where a process start costs 2 s (loading the app's modules). `spawn`
   * checks the process's side (exit codes, streams) once per kind of outcome.
   */
  const invoke = async (args: string[], environment = env): Promise<Outcome> => {
    const output = { stdout: '', stderr: '' };
    const streams = { out: (text: string) => void (output.stdout += text), err: (text: string) => void (output.stderr += text) };
    const code = await runCli(args, { env: (name) => environment[name], streams, logger: false });
    return { code, ...output };
  };
  /** A run as an operator's: `node dist/src/cli.js`, a process of its own. */
  const spawn = async (args: string[], environment = env): Promise<Outcome> => {
    try {
      return { code: 0, ...(await execute(process.execPath, [CLI, ...args], { env: environment })) };
    } catch (error) {
      const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string };
      if (typeof code !== 'number') throw error;
      return { code, stdout: stdout ?? '', stderr: stderr ?? '' };
    }
  };
  /** The output of a run that must succeed. */
  const succeeded = (outcome: Outcome, args: string[]) => {
    assert.equal(outcome.code, 0, `${args.join(' ')}: ${outcome.stderr}`);
    assert.equal(outcome.stderr, '', args.join(' '));
    return outcome.stdout;
  };
  const cli = async (...args: string[]) => succeeded(await invoke(args), args);
  const field = (output: string, label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(output)?.[1] ?? assert.fail(`no ${label} in:\n${output}`);
  /** Runs each at once; each must exit 1 with stderr matching its pattern and print nothing on stdout. */
  const refused = (cases: [args: string[], stderr: RegExp][], run = invoke) =>
    Promise.all(
      cases.map(async ([args, pattern]) => {
        const outcome = await run(args);
        assert.equal(outcome.code, 1, `exit code of ${args.join(' ')}: ${outcome.stderr}`);
        assert.match(outcome.stderr, pattern, args.join(' '));
        assert.equal(outcome.stdout, '', args.join(' '));
      }),
    );
  const newEmail = (prefix: string) => `cli.${prefix}.${randomBytes(4).toString('hex')}@example.com`;

  // One workspace made before the tests (the run also migrates the fresh SQLite file: runs at
  // once must not race to), and one app on the same database for HTTP checks.
  const email = newEmail('owner');
  let created: string;
  let workspaceId: string;
  let app: TestApp;
  before(async () => {
    created = await cli('workspace', 'create', '--email', email);
    workspaceId = field(created, 'workspace id');
    app = await startApp({ SQLITE_FILE: env.SQLITE_FILE!, MASTER_KEY: env.MASTER_KEY!, DATA_DIR: dataDir });
  });
  after(() => app.close());

  it('runs as a process of its own: output on stdout and exit code 0, or a message on stderr and exit code 1', async () => {
    const args = ['workspace', 'create', '--email', newEmail('process')];
    const [made] = await Promise.all([
      spawn(args),
      refused(
        [
          // A usage error (commander's) and a refusal (the service's).
          [
            ['deliveries', 'problems', '--limit', '0'],
            /^error: option '--limit <n>' argument '0' is invalid\. It must be a whole number from 1 to 10000\.\n\(npm run cli -- deliveries problems --help shows the usage\)\n$/,
          ],
          [['workspace', 'show', 'missing'], /^Error \(NOT_FOUND\): Workspace not found\.\n$/],
        ],
        spawn,
      ),
    ]);
    assert.match(succeeded(made, args), /^Workspace ".*" created\.\n {2}workspace id: +\w+\n {2}workspace auth token: +\w+\n/);
  });

  it('sets a plan and the production-key flag, each only when given, and production keys follow them', async () => {
    const testingKey = field(created, 'API key \\(testing\\)');
    const testingToken = field(created, 'API key auth token');
    await refused([[['apikey', 'create', '--workspace', workspaceId, '--email', email, '--type', 'production'], /^Error \(PERMISSION_DENIED\): /]]);
    // Each call changes only what it names: the plan stays free, then the flag stays on.
    assert.match(await cli('workspace', 'set-plan', workspaceId, '--self-serve-production-keys'), /plan free, self-serve production keys on/);
    assert.match(await cli('workspace', 'set-plan', workspaceId, '--plan', 'paid'), /plan paid, self-serve production keys on/);
    const [production] = await Promise.all([
      cli('apikey', 'create', '--workspace', workspaceId, '--email', email, '--type', 'production', '--region', 'europe-west1'),
      refused([
        [['workspace', 'set-plan', workspaceId, '--plan', 'gold'], /option '--plan <plan>' argument 'gold' is invalid\. Allowed values: free, paid\./],
        [['workspace', 'set-plan', workspaceId], /nothing to set: give --plan, --self-serve-production-keys or --no-self-serve-production-keys/],
      ]),
    ]);
    // Still paid: gold was not stored.
    assert.match(await cli('workspace', 'set-plan', workspaceId, '--no-self-serve-production-keys'), /plan paid, self-serve production keys off/);

    for (const [apiKey, authToken] of [
      [testingKey, testingToken],
      [field(production, 'API key'), field(production, 'API key auth token')],
    ]) {
      expectSuccess(await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-svc-api-key': apiKey!, 'x-svc-auth-token': authToken! }));
    }
  });

  it('refuses bad input of every command with exit code 1 and says what is wrong, storing nothing', async () => {
    const refusedName = `refused ${randomBytes(4).toString('hex')}`;
    const refusedKey = ['apikey', 'create', '--workspace', workspaceId, '--email', email, '--name', refusedName];
    await refused([
      // Unknown commands, missing and extra arguments: the messages name the program as it is run.
      [['nope'], /^error: unknown command 'nope'\n\(npm run cli -- --help shows the usage\)\n$/],
      [['workspace', 'nope'], /unknown command 'nope' for 'npm run cli -- workspace' \(commands: create, set-plan, list, show\)/],
      [['apikey', 'nope'], /unknown command 'nope' for 'npm run cli -- apikey' \(commands: create, list, show, revoke\)/],
      [['deliveries', 'nope'], /unknown command 'nope' for 'npm run cli -- deliveries' \(commands: problems\)/],
      [['migration', 'nope'], /unknown command 'nope' for 'npm run cli -- migration' \(commands: run\)/],
      [['master-key', 'nope'], /unknown command 'nope' for 'npm run cli -- master-key' \(commands: rotate, check\)/],
      [['workspace'], /^Usage: npm run cli -- workspace \[options\] \[command\]\n/],
      [['apikey'], /^Usage: npm run cli -- apikey \[options\] \[command\]\n[\s\S]*revoke <apiKey>/],
      [['workspace', 'create'], /required option '--email <email>' not specified/],
      [['workspace', 'list', '--bogus'], /unknown option '--bogus'/],
      [['workspace', 'show'], /missing required argument 'workspaceId'/],
      [['workspace', 'set-plan'], /missing required argument 'workspaceId'/],
      [['apikey', 'show', 'one', 'two'], /too many arguments for 'show'/],
      [['apikey', 'revoke'], /missing required argument 'apiKey'/],
      [['migration', 'run', 'extra'], /too many arguments for 'run'/],
      // Bad option values.
      [['deliveries', 'problems', '--limit', '0'], /option '--limit <n>' argument '0' is invalid\. It must be a whole number from 1 to 10000\./],
      [['deliveries', 'problems', '--limit', '-3'], /option '--limit <n>' argument '-3' is invalid\./],
      [['deliveries', 'problems', '--limit', 'x'], /option '--limit <n>' argument 'x' is invalid\./],
      [['workspace', 'list', '--limit', '10001'], /option '--limit <n>' argument '10001' is invalid\./],
      [['apikey', 'list', '--limit', '1.5'], /option '--limit <n>' argument '1\.5' is invalid\./],
      [['workspace', 'set-plan', workspaceId, '--plan', 'Paid'], /option '--plan <plan>' argument 'Paid' is invalid\. Allowed values: free, paid\./],
      [[...refusedKey, '--type', 'gold'], /option '--type <type>' argument 'gold' is invalid\. Allowed values: testing, production\./],
      // The API's own rules (the request DTOs).
      [['workspace', 'create', '--email', 'bad'], /^Error \(INVALID_ARGUMENT\):.*data\.ownerEmail/],
      [[...refusedKey, '--type', 'production', '--region', 'nowhere'], /^Error \(INVALID_ARGUMENT\):.*persistenceDBRegion/],
      [['apikey', 'create', '--workspace', workspaceId, '--email', 'not-an-email', '--name', refusedName], /^Error \(INVALID_ARGUMENT\):.*data\.ownerEmail/],
      // Unknown ids.
      [['workspace', 'set-plan', 'missing', '--plan', 'paid'], /^Error \(NOT_FOUND\): Workspace not found\.\n$/],
      [['workspace', 'show', 'missing'], /^Error \(NOT_FOUND\): Workspace not found\.\n$/],
      [['apikey', 'create', '--workspace', 'missing', '--email', email], /^Error \(NOT_FOUND\): Workspace not found\.\n$/],
      [['apikey', 'list', '--workspace', 'missing'], /^Error \(NOT_FOUND\): Workspace not found\.\n$/],
      [['apikey', 'show', 'missing'], /^Error \(NOT_FOUND\): API key not found\.\n$/],
      [['apikey', 'revoke', 'missing'], /^Error \(NOT_FOUND\): API key not found\.\n$/],
      [['deliveries', 'problems', '--api-key', 'missing'], /^Error \(NOT_FOUND\): API key not found\.\n$/],
    ]);
    // A configuration the service refuses.
    await refused([[['workspace', 'list'], /^Invalid configuration: MASTER_KEY must be 32 bytes encoded as base64\.\n$/]], (args) =>
      invoke(args, { ...env, MASTER_KEY: 'short' }),
    );
    assert.match(await cli('--help'), /^Usage: npm run cli -- \[options\] \[command\]\n[\s\S]*workspace +Manage workspaces/);
    const keys = await app.post('/v2/workspace/apikeys/get', { data: {} }, workspaceHeaders(created));
    const names = (expectSuccess(keys).data as { apiKeyName: string }[]).map((key) => key.apiKeyName);
    assert.ok(!names.includes(refusedName), `a refused key was stored: ${names.join(', ')}`);
  });

  it('lists and shows workspaces and keys without their secrets, and revokes a key for good', async () => {
    const owner = newEmail('list');
    const made = await cli('workspace', 'create', '--email', owner, '--workspace-name', 'Docs\u001b[2J\nforged line');
    const [id, apiKey, workspaceToken, authToken] = [
      field(made, 'workspace id'),
      field(made, 'API key \\(testing\\)'),
      field(made, 'workspace auth token'),
      field(made, 'API key auth token'),
    ];
    const [list, show, key] = await Promise.all([
      cli('workspace', 'list', '--email', owner.toUpperCase()),
      cli('workspace', 'show', id),
      cli('apikey', 'show', apiKey),
    ]);
    const name = 'Docs\\u001b[2J\\u000aforged line';
    assert.match(
      list,
      new RegExp(`^ID +PLAN +CREATED +OWNER +NAME\\n${id}  free  \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ  ${escape(owner)}  ${escape(name)}\\n$`),
    );
    assert.match(show, new RegExp(`^Workspace "${escape(name)}"\\n  workspace id: +${id}\\n  owner e-mail: +${escape(owner)}\\n`));
    assert.match(show, /plan: +free\n {2}self-serve production keys: +off\n/);
    assert.match(show, new RegExp(`API keys \\(1\\):\\n.*\\n  ${apiKey}  testing  live  `));
    assert.match(key, new RegExp(`^API key ".*"\\n  API key: +${apiKey}\\n  type: +testing\\n  workspace id: +${id}\\n`));
    assert.match(key, new RegExp(`status: +live\\n\\nAuth tokens \\(1, only their start is shown\\):\\n.*\\n  ${escape(authToken.slice(0, 8))}…  `));
    for (const output of [list, show, key]) {
      assert.ok(!output.includes(workspaceToken) && !output.includes(authToken), `a secret was printed:\n${output}`);
    }

    assert.equal((await cli('apikey', 'revoke', apiKey)).trim(), `API key ${apiKey} revoked: its auth tokens no longer work.`);
    const [again, revoked, listed] = await Promise.all([
      cli('apikey', 'revoke', apiKey),
      cli('apikey', 'show', apiKey),
      cli('apikey', 'list', '--workspace', id),
    ]);
    assert.match(again, new RegExp(`^API key ${apiKey} was already revoked \\(\\d{4}-.*Z\\)\\.\\n$`));
    assert.match(revoked, /status: +revoked \d{4}-.*Z\n\nNo auth tokens\.\n$/);
    assert.match(listed, new RegExp(`^API KEY +TYPE +STATUS +CREATED +OWNER +NAME\\n${apiKey}  testing  revoked  .*  ${escape(owner)}  .*\\n$`));

    // Its token fails as an unknown key's does, and its workspace no longer has it.
    const unknown = await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-svc-api-key': 'unknownKey00000000000000', 'x-svc-auth-token': authToken });
    const answer = await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-svc-api-key': apiKey, 'x-svc-auth-token': authToken });
    expectError(unknown, 403, 'PERMISSION_DENIED', 'Invalid API key or auth token.');
    assert.deepEqual([answer.status, answer.body], [unknown.status, unknown.body]);
    const headers = workspaceHeaders(made);
    assert.deepEqual(expectSuccess(await app.post('/v2/workspace/get', { data: {} }, headers)).data.apiKeyList, {});
    assert.deepEqual(expectSuccess(await app.post('/v2/workspace/apikeys/get', { data: {} }, headers)).data, []);
    for (const operation of ['authtokens/get', 'authtoken/reset']) {
      expectError(await app.post(`/v2/workspace/${operation}`, { data: { apiKey } }, headers), 404, 'NOT_FOUND', 'API key not found.');
    }
    // What the console (a session's key) and live rooms (the room's key) look the key up by.
    const keys = app.app.get(ApiKeyStore);
    assert.deepEqual([await keys.workspaceOfKey(apiKey), await keys.profile(apiKey)], [undefined, undefined]);
  });

  it('lists failed deliveries per API key (deliveries problems)', async () => {
    const database = await ownDatabase();
    const receiver = await new WebhookReceiver().start();
    const own = { ...env, ...(database.url ? { DATABASE_URL: database.url } : {}) };
    const deliveringApp = await startApp({ ...own, DATA_DIR: dataDir, DELIVERY_CONCURRENCY: '4', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    try {
      receiver.answers.set('/gone', { status: 410 });
      const [key, other] = await Promise.all([createKey(deliveringApp), createKey(deliveringApp)]);
      const call = agentFor(deliveringApp, key);
      await advancedEndpoint(call, receiver.url('/gone'));
      expectSuccess(await call('/v2/activities/add', { organizationId: 'org-cli', documentId: 'doc', activities: [commentActivity()] }));
      const [hook] = await receiver.waitFor('/gone');
      // Settled as failed (seen through the API: each CLI run starts an app of its own), then listed.
      await waitForStatus(call, hook!.headers['webhook-id'] as string, 'failed');
      const problems = (apiKey: string) => invoke(['deliveries', 'problems', '--api-key', apiKey], own);
      const [output, none] = await Promise.all([problems(key.apiKey), problems(other.apiKey)]);
      assert.match(output.stdout, new RegExp(`API key ${key.apiKey}: 1 failed, 0 stuck`));
      assert.match(
        output.stdout,
        new RegExp(
          `${hook!.headers['webhook-id']}  advanced_webhook:ep_\\w+  comment\\.add  failed  after 1 attempt\\(s\\)  last error: The receiver answered 410 Gone\\.`,
        ),
      );
      assert.equal(none.stdout.trim(), 'No failed or stuck deliveries.');
    } finally {
      await deliveringApp.close();
      await receiver.stop();
      await database.drop();
    }
  });
});

/** The workspace-level headers of a `workspace create` output. */
function workspaceHeaders(output: string): Record<string, string> {
  const value = (label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(output)![1]!;
  return { 'x-svc-workspace-id': value('workspace id'), 'x-svc-workspace-auth-token': value('workspace auth token') };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
