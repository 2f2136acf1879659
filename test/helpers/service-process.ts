import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAIN = new URL('../../src/main.js', import.meta.url).pathname;

/** A built service (`dist/src/main.js`) running as a child process. */
export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** Its exit code (null after a signal). */
  exited: Promise<number | null>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the service with only `env` (and PATH) set; `DATA_DIR` defaults to a new temporary folder. */
export function startService(env: Record<string, string>): ServiceProcess {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    // The run's adapter (HTTP_ADAPTER), so process tests cover the one under test.
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'warn',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-proc-')),
      ...(process.env.HTTP_ADAPTER ? { HTTP_ADAPTER: process.env.HTTP_ADAPTER } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Waits for a started service to answer `/health`: 30 s, as a start under a loaded CI machine (three test files at once on two cores) passed 15 s. */
export async function waitForHealth(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('service did not become healthy');
}

/** POSTs an operation to a service on a port; answers status and body. */
export async function postTo(port: number, path: string, data: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ data }),
  });
  return { status: response.status, body: await response.json() };
}

/** A workspace created over HTTP on the service at `port`; answers the API-key headers of its first key. */
export async function apiKeyHeadersOn(port: number, ownerEmail: string): Promise<Record<string, string>> {
  const created = await postTo(port, '/v2/workspace/create', { ownerEmail });
  const apiKey = Object.keys(created.body.result.data.apiKeyList)[0]!;
  const workspace = { 'x-svc-workspace-id': created.body.result.data.id, 'x-svc-workspace-auth-token': created.body.result.data.authToken };
  const token = (await postTo(port, '/v2/workspace/authtokens/get', { apiKey }, workspace)).body.result.data.authTokens[0].token as string;
  return { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token };
}

/** How many times `addWhileKilled` kills the service. */
export const KILLS = 2;

/**
 * Two writers add activities (batches of `batchSize`, ids `r<round>-<writer>-<batch>-<i>`) while
 * the service is killed with SIGKILL, `KILLS` times, and started again after each kill (`running.service`
 * is the one running at the end). Each writer waits `pauseMs` between batches (a test whose every
 * event fans out keeps the flow, and the wait for its deliveries, small). Answers the ids whose
 * add was acknowledged.
 */
export async function addWhileKilled(
  port: number,
  env: Record<string, string>,
  running: { service: ServiceProcess },
  add: {
    headers: Record<string, string>;
    organizationId: string;
    batchSize: number;
    /** Acknowledged writes each round waits for before the kill. */
    perRound: number;
    pauseMs?: number;
    activity: (id: string) => Record<string, unknown>;
  },
): Promise<Set<string>> {
  const acknowledged = new Set<string>();
  for (let round = 0; round < KILLS; round++) {
    let writing = true;
    const writer = async (name: string) => {
      for (let batch = 0; writing; batch++) {
        const ids = Array.from({ length: add.batchSize }, (_, i) => `r${round}-${name}-${batch}-${i}`);
        try {
          const answer = await postTo(
            port,
            '/v2/activities/add',
            { organizationId: add.organizationId, documentId: 'doc', activities: ids.map((id) => ({ id, ...add.activity(id) })) },
            add.headers,
          );
          if (answer.status === 200) ids.forEach((id) => acknowledged.add(id));
        } catch {
          return; // the process is gone: this batch was never acknowledged
        }
        if (add.pauseMs) await new Promise((resolve) => setTimeout(resolve, add.pauseMs));
      }
    };
    const writers = [writer('a'), writer('b')];
    // Kill mid-flow, after at least 1.2 s and enough acknowledged writes that the round proves
    // something; on a loaded machine the second condition is what waits (for at most 20 s).
    const before = acknowledged.size;
    await new Promise((resolve) => setTimeout(resolve, 1200));
    for (const deadline = Date.now() + 20_000; acknowledged.size - before < add.perRound && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 50));
    running.service.child.kill('SIGKILL');
    await running.service.exited;
    writing = false;
    await Promise.all(writers);
    running.service = startService(env);
    await waitForHealth(port);
  }
  return acknowledged;
}

export interface LogLine {
  level: number;
  msg: string;
  context?: string;
  [field: string]: unknown;
}

/** Every line the process printed, each a JSON object. */
export function logLines(service: ServiceProcess): LogLine[] {
  return service
    .output()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogLine);
}

/** Sends SIGTERM, waits for the exit; answers the exit code and the lines from the signal on. */
export async function stopped(service: ServiceProcess): Promise<{ code: number | null; lines: LogLine[] }> {
  service.child.kill('SIGTERM');
  const code = await service.exited;
  const lines = logLines(service);
  return { code, lines: lines.slice(lines.findIndex((line) => line.msg === 'SIGTERM received: shutting down')) };
}
