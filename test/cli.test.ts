import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { startApp } from './helpers/app.js';
import { expectSuccess } from './factories/workspace.js';

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
      for (const [apiKey, authToken] of [[testingKey, testingToken], [field(production, 'API key'), field(production, 'API key auth token')]]) {
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
});
