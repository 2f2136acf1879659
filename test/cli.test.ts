// @testScope engine: the admin CLI runs without the HTTP adapter; its one HTTP call only checks the key it made.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { startApp } from './helpers/app.js';
import { ownDatabase } from './helpers/database.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { advancedEndpoint, commentActivity, waitForStatus } from './helpers/webhooks.js';
import { agentFor, createKey, expectSuccess } from './factories/workspace.js';

const CLI = new URL('../src/cli.js', import.meta.url).pathname;
const run = promisify(execFile);

describe('admin CLI', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  const env = {
    PATH: process.env.PATH ?? '',
    DATA_DIR: dataDir,
    SQLITE_FILE: join(dataDir, 'svc.sqlite'),
    MASTER_KEY: randomBytes(32).toString('base64'),
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  };
  const cli = async (...args: string[]) => (await run(process.execPath, [CLI, ...args], { env })).stdout;
  const field = (output: string, label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(output)?.[1] ?? assert.fail(`no ${label} in:\n${output}`);

  it('creates a workspace, sets its plan and creates a production key whose credentials work over HTTP', async () => {
    const email = `cli.${randomBytes(4).toString('hex')}@example.com`;
    const created = await cli('workspace', 'create', '--email', email);
    const workspaceId = field(created, 'workspace id');
    const testingKey = field(created, 'API key \\(testing\\)');
    const testingToken = field(created, 'API key auth token');

    await assert.rejects(cli('apikey', 'create', '--workspace', workspaceId, '--email', email, '--type', 'production'), /PERMISSION_DENIED/);
    assert.match(await cli('workspace', 'set-plan', workspaceId, '--plan', 'paid', '--self-serve-production-keys'), /plan paid, self-serve production keys on/);
    const production = await cli('apikey', 'create', '--workspace', workspaceId, '--email', email, '--type', 'production', '--region', 'europe-west1');

    const app = await startApp({ SQLITE_FILE: env.SQLITE_FILE, MASTER_KEY: env.MASTER_KEY, DATA_DIR: dataDir });
    try {
      for (const [apiKey, authToken] of [
        [testingKey, testingToken],
        [field(production, 'API key'), field(production, 'API key auth token')],
      ]) {
        expectSuccess(await app.post('/v2/workspace/domains/get', { data: {} }, { 'x-svc-api-key': apiKey!, 'x-svc-auth-token': authToken! }));
      }
    } finally {
      await app.close();
    }
  });

  it('reports domain errors with exit code 1', async () => {
    await assert.rejects(cli('workspace', 'set-plan', 'missing', '--plan', 'paid'), (error: { code?: number; stderr?: string }) => {
      assert.equal(error.code, 1);
      assert.match(error.stderr ?? '', /Workspace not found/);
      return true;
    });
  });

  it("validates its input with the API's rules, storing nothing it refuses", async () => {
    const refused = async (args: string[], pattern: RegExp) =>
      assert.rejects(cli(...args), (error: { code?: number; stderr?: string }) => {
        assert.equal(error.code, 1);
        assert.match(error.stderr ?? '', pattern);
        return true;
      });
    await refused(['workspace', 'create', '--email', 'bad'], /INVALID_ARGUMENT.*data\.ownerEmail/);
    const email = `cli.region.${randomBytes(4).toString('hex')}@example.com`;
    const created = await cli('workspace', 'create', '--email', email);
    const workspaceId = field(created, 'workspace id');
    await cli('workspace', 'set-plan', workspaceId, '--plan', 'paid', '--self-serve-production-keys');
    await refused(
      ['apikey', 'create', '--workspace', workspaceId, '--email', email, '--type', 'production', '--region', 'nowhere'],
      /INVALID_ARGUMENT.*persistenceDBRegion/,
    );
    await refused(['apikey', 'create', '--workspace', workspaceId, '--email', 'not-an-email'], /INVALID_ARGUMENT.*data\.ownerEmail/);
    const app = await startApp({ SQLITE_FILE: env.SQLITE_FILE, MASTER_KEY: env.MASTER_KEY, DATA_DIR: dataDir });
    try {
      const workspace = expectSuccess(
        await app.post(
          '/v2/workspace/get',
          { data: {} },
          { 'x-svc-workspace-id': workspaceId, 'x-svc-workspace-auth-token': field(created, 'workspace auth token') },
        ),
      ).data;
      assert.equal(Object.keys(workspace.apiKeyList).length, 1, 'only the first testing key: the refused ones were not stored');
    } finally {
      await app.close();
    }
  });

  it('lists failed deliveries per API key (deliveries problems)', async () => {
    const database = await ownDatabase();
    const receiver = await new WebhookReceiver().start();
    const own = { ...env, ...(database.url ? { DATABASE_URL: database.url } : {}) };
    const app = await startApp({ ...own, DATA_DIR: dataDir, DELIVERY_CONCURRENCY: '4', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    try {
      receiver.answers.set('/gone', { status: 410 });
      const key = await createKey(app);
      const call = agentFor(app, key);
      await advancedEndpoint(call, receiver.url('/gone'));
      expectSuccess(await call('/v2/activities/add', { organizationId: 'org-cli', documentId: 'doc', activities: [commentActivity()] }));
      const [hook] = await receiver.waitFor('/gone');
      // Settled as failed (seen through the API: each CLI run is a process start), then listed.
      await waitForStatus(call, hook!.headers['webhook-id'] as string, 'failed');
      const output = (await run(process.execPath, [CLI, 'deliveries', 'problems', '--api-key', key.apiKey], { env: own })).stdout;
      assert.match(output, new RegExp(`API key ${key.apiKey}: 1 failed, 0 stuck`));
      assert.match(
        output,
        new RegExp(
          `${hook!.headers['webhook-id']}  advanced_webhook:ep_\\w+  comment\\.add  failed  after 1 attempt\\(s\\)  last error: The receiver answered 410 Gone\\.`,
        ),
      );
      const other = (await run(process.execPath, [CLI, 'deliveries', 'problems', '--api-key', 'someone-else'], { env: own })).stdout;
      assert.equal(other.trim(), 'No failed or stuck deliveries.');
    } finally {
      await app.close();
      await receiver.stop();
      await database.drop();
    }
  });
});
