import { createServer } from 'node:http';
import type { AppConfig } from '../src/config/app-config.js';
import { PageTokens } from '../src/common/paging.js';
import { Secrets } from '../src/common/secrets.js';
import { openBareDatabase } from './bare-database.js';
import { SCENARIOS } from './scenarios.js';

/**
 * The bare baseline: `node:http`, JSON parsing, the same credential hash and the same SQL on
 * the same database, the same envelope (the service's message, and what its answer holds beside
 * `data`); nothing else. Run as its own process by `run.ts`.
 */
const port = Number(process.env.BASELINE_PORT);
const db = openBareDatabase(process.env.BENCH_DATABASE!);
const secrets = new Secrets({ masterKey: Buffer.from(process.env.MASTER_KEY!, 'base64') } as AppConfig);
const pageTokens = new PageTokens(secrets);
const byPath = new Map(SCENARIOS.flatMap((scenario) => (scenario.baseline ? [[scenario.path, scenario] as const] : [])));

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const scenario = byPath.get(req.url ?? '');
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (!scenario?.baseline) return reply(404, { error: { status: 'NOT_FOUND', message: 'Operation not found.' } });
    let body: { data: Record<string, unknown> };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return reply(400, { error: { status: 'INVALID_ARGUMENT', message: 'bad body' } });
    }
    scenario
      .baseline(db, { headers: req.headers, body, lookupHash: (secret) => secrets.lookupHash(secret), pageTokens })
      .then((data) => reply(200, { result: { status: 'success', message: scenario.message, data, ...scenario.beside?.(data) } }))
      .catch(() => reply(403, { error: { status: 'PERMISSION_DENIED', message: 'Invalid API key or auth token.' } }));
  });
}).listen(port, '127.0.0.1', () => process.send?.('ready'));
