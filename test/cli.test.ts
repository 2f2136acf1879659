// @testScope engine: the admin CLI runs without the HTTP adapter; its one HTTP call only checks the key it made.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { ownDatabase } from './helpers/database.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { advancedEndpoint, commentActivity, waitForStatus } from './helpers/webhooks.js';
import { agentFor, createKey, expectSuccess } from './factories/workspace.js';

const CLI = new URL('../src/cli.js', import.meta.url).pathname;
const execute = promisify(execFile);

/** At most `free` holders at a time; the others wait their turn, first come first served. */
class Semaphore {
  private readonly waiting: (() => void)[] = [];
  constructor(private free: number) {}

  async use<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

// Each invocation is a process that loads the whole app (about 2 s of CPU): the tests run at once
// and start their independent invocations at once, and this many processes run at a time, so
// the cores stay busy without the processes crowding each other out.
const processes = new Semaphore(availableParallelism() + 1);
const run = (args: string[], env: Record<string, string>) => processes.use(() => execute(process.execPath, [CLI, ...args], { env }));

describe('admin CLI', { concurrency: true }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  const env = {
    PATH: process.env.PATH ?? '',
    DATA_DIR: dataDir,
    SQLITE_FILE: join(dataDir, 'svc.sqlite'),
    MASTER_KEY: randomBytes(32).toString('base64'),
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  };
  const cli = async (...args: string[]) => (await run(args, env)).stdout;
  const field = (output: string, label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(output)?.[1] ?? assert.fail(`no ${label} in:\n${output}`);
  /** Runs each invocation at once; each must exit 1 with stderr matching its pattern and print nothing on stdout. */
  const refused = (cases: [args: string[], stderr: RegExp][]) =>
    Promise.all(
      cases.map(([args, pattern]) =>
        assert.rejects(cli(...args), (error: { code?: number; stdout?: string; stderr?: string }) => {
          assert.equal(error.code, 1, `exit code of ${args.join(' ')}: ${error.stderr}`);
          assert.match(error.stderr ?? '', pattern, args.join(' '));
          assert.equal(error.stdout, '', args.join(' '));
          return true;
        }),
      ),
    );
  const newEmail = (prefix: string) => `cli.${prefix}.${randomBytes(4).toString('hex')}@example.com`;

  // One workspace made before the tests (its process also migrates the fresh SQLite file, which
  // invocations at once must not race to do), and one app on the same database for HTTP checks.
  const email = newEmail('owner');
  let created: string;
  let workspaceId: string;
  let app: TestApp;
  before(async () => {
    created = await cli('workspace', 'create', '--email', email);
    workspaceId = field(created, 'workspace id');
    app = await startApp({ SQLITE_FILE: env.SQLITE_FILE, MASTER_KEY: env.MASTER_KEY, DATA_DIR: dataDir });
  });
  after(() => app.close());

  it('sets a plan and the production-key flag, each only when given, and production keys follow them', async () => {
    const testingKey = field(created, 'API key \\(testing\\)');
    const testingToken = field(created, 'API key auth token');
    await refused([
      [['workspace', 'set-plan', workspaceId, '--plan', 'gold'], /option '--plan <plan>' argument 'gold' is invalid\. Allowed values: free, paid\./],
      [['workspace', 'set-plan', workspaceId], /nothing to set: give --plan, --self-serve-production-keys or --no-self-serve-production-keys/],
      [['apikey', 'create', '--workspace', workspaceId, '--email', email, '--type', 'production'], /PERMISSION_DENIED/],
    ]);
    // Still free (gold was not stored); each call changes only what it names.
    assert.match(await cli('workspace', 'set-plan', workspaceId, '--self-serve-production-keys'), /plan free, self-serve production keys on/);
    assert.match(await cli('workspace', 'set-plan', workspaceId, '--plan', 'paid'), /plan paid, self-serve production keys on/);
    const production = await cli('apikey', 'create', '--workspace', workspaceId, '--email', email, '--type', 'production', '--region', 'europe-west1');
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
      [['nope'], /error: unknown command 'nope'\n\(npm run cli -- --help shows the usage\)/],
      [['workspace', 'nope'], /unknown command 'nope' for 'npm run cli -- workspace' \(commands: create, set-plan\)/],
      [['master-key', 'nope'], /unknown command 'nope' for 'npm run cli -- master-key' \(commands: rotate, check\)/],
      [['apikey'], /^Usage: npm run cli -- apikey \[options\] \[command\]\n[\s\S]*create \[options\]/],
      [['migration', 'run', 'extra'], /too many arguments for 'run'/],
      // Bad option values.
      [['deliveries', 'problems', '--limit', '0'], /option '--limit <n>' argument '0' is invalid\. It must be a whole number from 1 to 10000\./],
      [['deliveries', 'problems', '--limit', '-3'], /option '--limit <n>' argument '-3' is invalid/],
      [['deliveries', 'problems', '--limit', 'x'], /option '--limit <n>' argument 'x' is invalid/],
      [[...refusedKey, '--type', 'gold'], /option '--type <type>' argument 'gold' is invalid\. Allowed values: testing, production\./],
      // The API's own rules (the request DTOs).
      [['workspace', 'create', '--email', 'bad'], /Error \(INVALID_ARGUMENT\):.*data\.ownerEmail/],
      [[...refusedKey, '--type', 'production', '--region', 'nowhere'], /Error \(INVALID_ARGUMENT\):.*persistenceDBRegion/],
      // Unknown ids.
      [['workspace', 'set-plan', 'missing', '--plan', 'paid'], /^Error \(NOT_FOUND\): Workspace not found\.\n$/],
    ]);
    const keys = await app.post('/v2/workspace/apikeys/get', { data: {} }, workspaceHeaders(created));
    const names = (expectSuccess(keys).data as { apiKeyName: string }[]).map((key) => key.apiKeyName);
    assert.ok(!names.includes(refusedName), `a refused key was stored: ${names.join(', ')}`);
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
      // Settled as failed (seen through the API: each CLI run is a process start), then listed.
      await waitForStatus(call, hook!.headers['webhook-id'] as string, 'failed');
      const problems = (apiKey: string) => run(['deliveries', 'problems', '--api-key', apiKey], own);
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
