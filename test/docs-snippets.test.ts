import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { ownDatabase, type OwnDatabase } from './helpers/database.js';
import { freePort } from './helpers/service-process.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DOCS = join(ROOT, 'docs');

/** Every markdown file under docs/, as paths relative to it. */
function docFiles(folder = DOCS, prefix = ''): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? docFiles(join(folder, entry.name), `${prefix}${entry.name}/`) : entry.name.endsWith('.md') ? [`${prefix}${entry.name}`] : [],
  );
}

/** The file's shell blocks that call the service (`post` or `curl`): the snippets a reader pastes. */
function snippets(file: string): string[] {
  const markdown = readFileSync(join(DOCS, file), 'utf8');
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!).filter((block) => /(^|\s)(post|curl) /m.test(block));
}

/** Each JSON line a script printed. */
function answers(stdout: string): Record<string, any>[] {
  return stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/**
 * The docs' snippets, pasted into bash as a reader would, against a fresh service: the quickstart
 * alone, then each guide's snippets after it (they use its shell variables), in the guide's order.
 */
describe('the docs snippets', () => {
  let app: TestApp;
  let database: OwnDatabase;
  let folder: string;
  before(async () => {
    // The webhook recipe needs a delivery worker, hence a database of its own on PostgreSQL.
    database = await ownDatabase();
    app = await startApp({ DATABASE_URL: database.url, DELIVERY_CONCURRENCY: '4', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    // Snippets write files (the recipe's receiver) where they run, and import the project's packages.
    folder = mkdtempSync(join(tmpdir(), 'svc-docs-'));
    symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'));
  });
  after(async () => {
    await app.close();
    await database.drop();
  });

  const run = async (script: string) => {
    const environment = { ...process.env, BASE: app.url, RECEIVER_PORT: String(await freePort()) };
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: folder, env: environment, timeout: 60_000 });
    return answers(stdout);
  };
  const quickstart = () => snippets('quickstart.md').join('\n');

  it('the quickstart runs as pasted, and each step answers success', async () => {
    const steps = await run(quickstart());
    // domains add, two activities adds, then the suggestion.
    assert.equal(steps.length, 4, JSON.stringify(steps));
    for (const answer of steps.slice(0, 3)) assert.equal(answer.result?.status, 'success', JSON.stringify(answer));
    assert.equal(steps[3]!.result?.primary?.recommendation, 'reject', JSON.stringify(steps));
  });

  const guides = docFiles().filter((file) => file !== 'quickstart.md' && snippets(file).length > 0);
  it('the guides with snippets are the ones expected (a new snippet is run, not skipped)', () => {
    assert.deepEqual(guides.sort(), ['guides/user-data.md', 'guides/user-tokens.md', 'guides/webhooks.md']);
  });

  for (const guide of guides)
    it(`${guide}: its snippets run as pasted after the quickstart, and every answer is a success`, async () => {
      const printed = await run(`${quickstart()}\n${snippets(guide).join('\n')}`);
      const own = printed.slice(4);
      assert.ok(own.length > 0, 'the guide printed answers');
      for (const answer of own) assert.ok(!('error' in answer), JSON.stringify(answer));
      for (const answer of own.filter((line) => 'result' in line)) assert.equal(answer.result.status, 'success', JSON.stringify(answer));
      if (guide === 'guides/webhooks.md') {
        const delivered = own.find((line) => line.verified === true);
        assert.ok(delivered, `the receiver verified a delivery: ${JSON.stringify(own)}`);
        assert.equal(delivered.event, 'webhook.test');
        assert.match(delivered.webhookId, /^msg_/);
      }
    });
});
