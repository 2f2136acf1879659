// @testScope once: start-up refusals and start-up logs come before any HTTP framework serves (config, migrations, Nest's own lines), so one adapter stands for both; the adapters' own start-up (a port in use) and shutdown are in process.test.ts.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import WebSocket from 'ws';
import { apiKeyHeadersOn, freePort, logLines, postTo, startService, stopped, waitForHealth } from './helpers/service-process.js';

/** The files of the shared-editing stack: loaded by the first editor or live client, not at start-up. */
const SHARED_EDITING = /\/node_modules\/(yjs|@hocuspocus\/server|ws|y-protocols|lib0)\//;

/**
 * The scripts a process has loaded so far, through its inspector (`--inspect`): the debugger
 * reports every script parsed, and then each one parsed later, until `stop`.
 */
async function scriptsOf(inspectorUrl: string): Promise<{ urls: string[]; stop(): void }> {
  const socket = new WebSocket(inspectorUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const urls: string[] = [];
  let enabled!: () => void;
  const replayed = new Promise<void>((resolve) => (enabled = resolve));
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { id?: number; method?: string; params?: { url: string } };
    if (message.method === 'Debugger.scriptParsed') urls.push(message.params!.url);
    if (message.id === 1) enabled();
  });
  socket.send(JSON.stringify({ id: 1, method: 'Debugger.enable' }));
  await replayed;
  return { urls, stop: () => socket.close() };
}

describe('the service process, starting', () => {
  const children: ChildProcess[] = [];
  after(() => children.forEach((child) => child.kill('SIGKILL')));

  it('refuses to start on a bad variable, naming it', async () => {
    const service = startService({ PORT: 'eighty' });
    children.push(service.child);
    assert.equal(await service.exited, 1);
    assert.match(service.output(), /Invalid configuration: PORT must be an integer/);
  });

  it('logs JSON lines: where it listens and which database, the generated master key to back up, and start-up failures', async () => {
    const port = await freePort();
    const service = startService({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    children.push(service.child);
    await waitForHealth(port);
    // The service writes its log asynchronously: its Listening line may reach the pipe just after it answers.
    for (const until = Date.now() + 5000; !service.output().includes('"msg":"Listening"') && Date.now() < until;)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const lines = service
      .output()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string; address?: string; database?: string; file?: string });
    const listening = lines.find((line) => line.msg === 'Listening');
    assert.equal(listening?.address, `http://127.0.0.1:${port}`);
    assert.match(listening?.database ?? '', /^sqlite .*svc\.sqlite$/);
    assert.match(lines.find((line) => /master key was generated/.test(line.msg))?.file ?? '', /master\.key$/);
    service.child.kill('SIGTERM');
    await service.exited;

    const failing = startService({
      PORT: String(await freePort()),
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      MASTER_KEY: randomBytes(32).toString('base64'),
    });
    children.push(failing.child);
    assert.equal(await failing.exited, 1);
    const fatal = failing
      .output()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .find((line) => line.level === 60);
    assert.equal(fatal?.msg, 'The service could not start', failing.output());
  });

  it('at start: the migrations applied, route mappings only at debug, and Listening once everything is up; none pending on the next start', async () => {
    const port = await freePort();
    const env = { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-proc-')), MASTER_KEY: randomBytes(32).toString('base64') };
    const first = startService({ ...env, LOG_LEVEL: 'debug' });
    children.push(first.child);
    await waitForHealth(port);
    const lines = logLines(first);
    const migrations = lines.filter((line) => line.context === 'Migrations');
    assert.equal(migrations.length, 1, JSON.stringify(migrations));
    const names = MIGRATIONS.map((Migration) => new Migration().name ?? Migration.name);
    assert.deepEqual(migrations[0], { ...migrations[0], level: 30, count: names.length, migrations: names, msg: `Applied ${names.length} migrations` });
    // Nest's route table (a line per route) and its early "started" line are debug detail.
    const routes = lines.filter((line) => line.context === 'RouterExplorer' || line.context === 'RoutesResolver');
    assert.ok(routes.length > 100, `${routes.length} route lines`);
    assert.deepEqual([...new Set(routes.map((line) => line.level))], [20]);
    const loading = lines.filter((line) => line.context === 'InstanceLoader' || line.context === 'NestFactory');
    assert.ok(loading.length > 10, `${loading.length} module-loading lines at debug`);
    assert.deepEqual([...new Set(loading.map((line) => line.level))], [20]);
    assert.equal(lines.find((line) => line.msg === 'Nest application successfully started')?.level, 20);
    // Listening comes after every start-up line (requests may be answered as soon as the port is bound).
    const startup = lines.filter((line) => line.msg !== 'request completed');
    assert.equal(startup.at(-1)?.msg, 'Listening', JSON.stringify(startup.slice(-3)));
    assert.equal(startup.filter((line) => line.msg === 'Listening').length, 1);
    assert.equal((await stopped(first)).code, 0);

    const second = startService({ ...env, LOG_LEVEL: 'info' });
    children.push(second.child);
    await waitForHealth(port);
    const again = logLines(second);
    assert.deepEqual(
      again.filter((line) => line.context === 'Migrations').map(({ level, count, msg }) => ({ level, count, msg })),
      [{ level: 30, count: 0, msg: 'No migrations pending' }],
    );
    assert.equal(again.filter((line) => line.context === 'RouterExplorer' || line.context === 'RoutesResolver').length, 0, 'no route lines at info');
    // Nor a line per module loaded, nor Nest's "Starting Nest application...": at info, start-up says what an operator acts on.
    assert.deepEqual(
      again.filter((line) => line.context === 'InstanceLoader' || line.context === 'NestFactory').map((line) => line.msg),
      [],
      'no module-loading lines at info',
    );
    assert.equal((await stopped(second)).code, 0);
  });

  it('gives back the memory starting took before it listens: at ready, the young generation is small again', async () => {
    const port = await freePort();
    const service = startService({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-proc-')), LOG_LEVEL: 'debug' });
    children.push(service.child);
    await waitForHealth(port);
    // Loading the modules and migrating fill the young generation to its limit (two 16 MB
    // semi-spaces here); V8 itself shrinks it only after 30-40 s idle.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const newSpace = Number(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(newSpace > 0 && newSpace <= 4 * 2 ** 20, `young generation at ready: ${newSpace} bytes`);
    const released = logLines(service).find((line) => line.msg === 'Start-up memory released');
    assert.ok(typeof released?.collectedMs === 'number', JSON.stringify(released));
    const lines = logLines(service).filter((line) => line.msg !== 'request completed');
    assert.ok(lines.indexOf(released!) < lines.findIndex((line) => line.msg === 'Listening'), 'released before it listens');
    assert.equal((await stopped(service)).code, 0);
  });

  it('loads the shared-editing stack (Yjs, Hocuspocus, ws) with the first editor, not at start-up', async () => {
    const port = await freePort();
    const service = startService({ PORT: String(port), HOST: '127.0.0.1', NODE_OPTIONS: '--inspect=127.0.0.1:0' });
    children.push(service.child);
    await waitForHealth(port);
    const scripts = await scriptsOf(/Debugger listening on (ws:\/\/\S+)/.exec(service.output())![1]!);
    try {
      assert.ok(
        scripts.urls.some((url) => url.endsWith('/dist/src/live/live-editing.js')),
        'the list holds what start-up loaded',
      );
      assert.deepEqual(
        scripts.urls.filter((url) => SHARED_EDITING.test(url)),
        [],
        'nothing of it at start-up',
      );
      const headers = await apiKeyHeadersOn(port, 'owner@example.com');
      const editor = { organizationId: 'org', documentId: 'doc', editorId: 'e', type: 'text', data: 'hello' };
      assert.equal((await postTo(port, '/v2/crdt/add', editor, headers)).status, 200);
      assert.ok(
        scripts.urls.some((url) => url.includes('/node_modules/yjs/')),
        'Yjs loaded with the first editor',
      );
    } finally {
      scripts.stop();
    }
    // Not `stopped`: the inspector's own lines on stderr are not JSON log lines.
    service.child.kill('SIGTERM');
    assert.equal(await service.exited, 0);
  });
});
