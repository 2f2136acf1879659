import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';

const README = new URL('../../README.md', import.meta.url);

/** The README's curl walk-through, pasted into bash as a newcomer would, against a fresh service. */
describe('the README walk-through', () => {
  let app: TestApp;
  before(async () => (app = await startApp()));
  after(() => app.close());

  it('runs as pasted, and each step answers success', async () => {
    const readme = readFileSync(README, 'utf8');
    const section = readme.slice(readme.indexOf('## Walk-through with curl'));
    const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    assert.ok(script, 'the walk-through has a sh block');
    const base = app.url;
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { env: { ...process.env, BASE: base } });
    const answers = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { result?: { status?: string; primary?: { recommendation: string } } });
    // domains add, two activities adds, then the suggestion.
    assert.equal(answers.length, 4, stdout);
    for (const answer of answers.slice(0, 3)) assert.equal(answer.result?.status, 'success', JSON.stringify(answer));
    assert.equal(answers[3]!.result?.primary?.recommendation, 'reject', stdout);
  });
});
