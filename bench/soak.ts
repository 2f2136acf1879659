import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, waitForHealth } from '../test/helpers/service-process.js';
import { SmtpReceiver } from '../test/helpers/smtp-receiver.js';

/**
 * `npm run soak`: whether the service's memory levels off under a steady mixed load. For each
 * engine it starts the built service on a new database (SQLite in a temporary folder, or a
 * PostgreSQL database it creates and drops), seeds a small workspace through the API, then for
 * the whole run sends a paced mix of reads, writes, comments (with activities and notifications)
 * and activities, which the service delivers to a local webhook receiver and mails to a local
 * SMTP server. Every `--sample-seconds` it reads the service's RSS (/proc VmRSS) and its V8 heap
 * (`GET /metrics`); the service runs with `--trace-gc`, whose full collections give the live heap.
 * At the end it prints per engine the least-squares slope of each, over the whole run and over its
 * second half: a slope near 0 in the second half means memory levelled off.
 *
 * Options (flags or environment):
 *   --minutes N          SOAK_MINUTES          run length per engine (default 5)
 *   --engine E           SOAK_ENGINE           sqlite, postgres or both (default both, one after the other)
 *   --rate N             SOAK_RATE             requests started per second (default 25; at most 8 in flight)
 *   --sample-seconds N   SOAK_SAMPLE_SECONDS   time between samples (default 10)
 *   --heap-snapshots DIR SOAK_HEAPSNAPSHOT_DIR write a heap snapshot of the service at a third of the run and
 *                                              at its end (`--heapsnapshot-signal`), to compare in DevTools
 * PostgreSQL: the server of TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 */

type Engine = 'sqlite' | 'postgres';

interface Options {
  minutes: number;
  engines: Engine[];
  rate: number;
  sampleSeconds: number;
  heapSnapshotDir: string | undefined;
}

const MAIN = new URL('../src/main.js', import.meta.url).pathname;
const RECEIVER = new URL('./webhook-receiver.js', import.meta.url).pathname;
const MAX_IN_FLIGHT = 8;
const ORGANIZATION = 'soak-org';
const DOCUMENTS = 200;
const FOLDERS = 20;
const USERS = 40;
/** A new activity document every this many requests: per-document state keeps meeting new documents. */
const REQUESTS_PER_NEW_DOCUMENT = 50;

const log = (message: string) => process.stdout.write(`${message}\n`);

/** Stops of the engine running now: a soak interrupted (Ctrl-C) still stops its service and drops its database. */
const cleanups = new Set<() => Promise<void>>();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    log(`\n${signal}: stopping the service and removing its database…`);
    void Promise.allSettled([...cleanups].map((cleanup) => cleanup())).then(() => process.exit(130));
  });

function parseOptions(argv: string[]): Options {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i]!.split('=', 2) as [string, string | undefined];
    if (!name.startsWith('--')) throw new Error(`Unexpected argument: ${name}`);
    flags.set(name.slice(2), inline ?? argv[++i] ?? '');
  }
  const known = ['minutes', 'engine', 'rate', 'sample-seconds', 'heap-snapshots'];
  for (const name of flags.keys()) if (!known.includes(name)) throw new Error(`Unknown option --${name} (known: ${known.map((k) => `--${k}`).join(', ')})`);
  const number = (flag: string, env: string, fallback: number) => {
    const value = Number(flags.get(flag) ?? process.env[env] ?? fallback);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${flag} (${env}) must be a positive number`);
    return value;
  };
  const engine = flags.get('engine') ?? process.env.SOAK_ENGINE ?? 'both';
  if (!['sqlite', 'postgres', 'both'].includes(engine)) throw new Error('--engine (SOAK_ENGINE) is sqlite, postgres or both');
  return {
    minutes: number('minutes', 'SOAK_MINUTES', 5),
    engines: engine === 'both' ? ['sqlite', 'postgres'] : [engine as Engine],
    rate: number('rate', 'SOAK_RATE', 25),
    sampleSeconds: number('sample-seconds', 'SOAK_SAMPLE_SECONDS', 10),
    heapSnapshotDir: flags.get('heap-snapshots') ?? process.env.SOAK_HEAPSNAPSHOT_DIR,
  };
}

function residentMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** The V8 heap in use and reserved, from the service's own metrics (`nodejs_heap_size_used_bytes`, `…_total_bytes`). */
async function heapOf(port: number): Promise<{ usedMb: number; totalMb: number } | undefined> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const mb = (name: string) => Number(new RegExp(`^${name}\\s+([\\d.e+]+)`, 'm').exec(text)?.[1]) / 1024 / 1024;
    const [usedMb, totalMb] = [mb('nodejs_heap_size_used_bytes'), mb('nodejs_heap_size_total_bytes')];
    return Number.isFinite(usedMb) && Number.isFinite(totalMb) ? { usedMb, totalMb } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The heap left after a full collection, from a `--trace-gc` line: `Mark-Compact 251.2 (290.1) -> 80.4 (291.0) MB`.
 * Sampled heap use swings between collections; what survives a full one is the live data, the number that shows a leak.
 */
function liveAfterFullGc(line: string): number | undefined {
  const match = /Mark-Compact[^\d]*[\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/.exec(line);
  return match ? Number(match[1]) : undefined;
}

/** Least-squares slope of y over x (per unit of x); 0 with fewer than two points. */
function slope(points: readonly { x: number; y: number }[]): number {
  if (points.length < 2) return 0;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / points.length;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / points.length;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - meanX) * (p.y - meanY);
    den += (p.x - meanX) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** The webhook receiver of the benchmark, in a process of its own; asked for its count over IPC. */
class WebhookReceiver {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const child = fork(RECEIVER, [], { stdio: 'inherit' });
    const port = await new Promise<number>((resolve) => child.once('message', (message: { port: number }) => resolve(message.port)));
    return new WebhookReceiver(child, port);
  }

  count(path: string): Promise<number> {
    return new Promise((resolve) => {
      const onMessage = (message: { stats?: { count: number } }) => {
        if (!message.stats) return;
        this.child.off('message', onMessage);
        resolve(message.stats.count);
      };
      this.child.on('message', onMessage);
      this.child.send({ stats: path });
    });
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}

/** A PostgreSQL database of its own for one run: created on the server of TEST_POSTGRES_URL, dropped after. */
async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new URL(process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const name = `soak_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

interface Sample {
  minutes: number;
  rssMb: number;
  heap: { usedMb: number; totalMb: number } | undefined;
}

/** A start-to-end summary of one measure: first, last and largest value, and its slope over the run and its second half. */
interface Trend {
  count: number;
  startMb: number;
  endMb: number;
  maxMb: number;
  slopeMbPerMin: number;
  secondHalfSlopeMbPerMin: number;
}

function trend(points: readonly { x: number; y: number }[], half: number): Trend | undefined {
  if (!points.length) return undefined;
  const round = (value: number) => Number(value.toFixed(2));
  return {
    count: points.length,
    startMb: round(points[0]!.y),
    endMb: round(points.at(-1)!.y),
    maxMb: round(Math.max(...points.map((p) => p.y))),
    slopeMbPerMin: round(slope(points)),
    secondHalfSlopeMbPerMin: round(slope(points.filter((p) => p.x >= half))),
  };
}

interface EngineReport {
  engine: Engine;
  minutes: number;
  /** Resident set (VmRSS), sampled. */
  rss: Trend;
  /** V8 heap in use, sampled (it swings between collections). */
  heapUsed: Trend | undefined;
  /** V8 heap reserved, sampled. */
  heapTotal: Trend | undefined;
  /** Heap left after each full collection (`--trace-gc`): the live data. */
  liveAfterFullGc: Trend | undefined;
  requests: number;
  errors: number;
  skipped: number;
  deliveries: number;
  mails: number;
  heapSnapshots: string[];
  firstErrors: string[];
}

type Headers = Record<string, string>;

/** One client of the service: JSON posts with the envelope, failures thrown with what came back. */
function poster(port: number) {
  return async (path: string, data: unknown, headers: Headers = {}): Promise<any> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ data }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
}

type Post = ReturnType<typeof poster>;

const folderId = (i: number) => `folder-${i % FOLDERS}`;
const documentId = (i: number) => `doc-${String(i % DOCUMENTS).padStart(4, '0')}`;
const userId = (i: number) => `user-${i % USERS}`;

/**
 * A workspace whose key has advanced webhooks on (one endpoint at the receiver), e-mail and
 * notifications on, one organization of 20 folders and 200 documents, 40 users with addresses,
 * a quarter of them choosing `email: ALL` on every document, a grant each, and one text editor.
 */
async function seedWorkspace(post: Post, receiver: WebhookReceiver): Promise<Headers> {
  const created = (await post('/v2/workspace/create', { ownerEmail: `soak.${Date.now()}@example.com` })).result.data;
  const apiKey = Object.keys(created.apiKeyList)[0]!;
  const workspace = { 'x-svc-workspace-id': created.id, 'x-svc-workspace-auth-token': created.authToken };
  const token = (await post('/v2/workspace/authtokens/get', { apiKey }, workspace)).result.data.authTokens[0].token as string;
  const headers = { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token };
  await post('/v2/workspace/domains/add', { domains: ['app.example.com'] }, headers);
  await post('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, headers);
  await post('/v2/workspace/advancedwebhook/endpoints/create', { url: `http://127.0.0.1:${receiver.port}/soak` }, headers);
  await post('/v2/workspace/emailconfig/update', { useEmailService: true, emailServiceConfig: { type: 'default', fromCompany: 'Soak' } }, headers);
  await post('/v2/workspace/notificationconfig/update', { useNotificationService: true }, headers);
  await post('/v2/organizations/add', { organizations: [{ organizationId: ORGANIZATION, organizationName: 'Soak' }] }, headers);
  await post(
    '/v2/organizations/folders/add',
    { organizationId: ORGANIZATION, folders: Array.from({ length: FOLDERS }, (_, i) => ({ folderId: folderId(i) })) },
    headers,
  );
  for (let f = 0; f < FOLDERS; f++) {
    const documents = Array.from({ length: DOCUMENTS / FOLDERS }, (_, j) => ({
      documentId: documentId(f * (DOCUMENTS / FOLDERS) + j),
      documentName: `Document ${j}`,
    }));
    await post('/v2/organizations/documents/add', { organizationId: ORGANIZATION, folderId: folderId(f), documents }, headers);
  }
  const users = Array.from({ length: USERS }, (_, i) => ({ userId: userId(i), name: `User ${i}`, email: `${userId(i)}@mail.soak` }));
  await post('/v2/users/add', { organizationId: ORGANIZATION, users }, headers);
  // At most 30 documents per request.
  for (let from = 0; from < DOCUMENTS; from += 25)
    await post(
      '/v2/notifications/config/set',
      {
        organizationId: ORGANIZATION,
        userIds: users.slice(0, USERS / 4).map((u) => u.userId),
        documentIds: Array.from({ length: 25 }, (_, i) => documentId(from + i)),
        config: { email: 'ALL' },
      },
      headers,
    );
  await post('/v2/crdt/add', { organizationId: ORGANIZATION, documentId: documentId(0), editorId: 'notes', type: 'text', data: 'Soak notes. ' }, headers);
  return headers;
}

/** One kind of request in the mix: its weight, and the request for the n-th one sent. */
interface Operation {
  name: string;
  weight: number;
  request: (n: number) => { path: string; data: unknown };
}

const activityDocument = (n: number) => `act-doc-${Math.floor(n / REQUESTS_PER_NEW_DOCUMENT)}`;

const OPERATIONS: Operation[] = [
  // Reads
  { name: 'domains/get', weight: 6, request: () => ({ path: '/v2/workspace/domains/get', data: {} }) },
  {
    name: 'documents/get',
    weight: 8,
    request: (n) => ({
      path: '/v2/organizations/documents/get',
      data: { organizationId: ORGANIZATION, pageSize: 50, ...(n % 2 ? { folderId: folderId(n) } : {}) },
    }),
  },
  {
    name: 'permissions/get',
    weight: 6,
    request: (n) => ({
      path: '/v2/auth/permissions/get',
      data: {
        organizationId: ORGANIZATION,
        userIds: [userId(n), userId(n + 1), userId(n + 7)],
        documentIds: [documentId(n), documentId(n + 3)],
        folderIds: [folderId(n)],
      },
    }),
  },
  { name: 'users/get', weight: 4, request: (n) => ({ path: '/v2/users/get', data: { organizationId: ORGANIZATION, userIds: [userId(n), userId(n + 5)] } }) },
  {
    name: 'activities/get',
    weight: 8,
    request: (n) => ({ path: '/v2/activities/get', data: { organizationId: ORGANIZATION, documentId: activityDocument(n), pageSize: 50 } }),
  },
  {
    name: 'commentannotations/get',
    weight: 6,
    request: (n) => ({ path: '/v2/commentannotations/get', data: { organizationId: ORGANIZATION, documentId: documentId(n), pageSize: 20 } }),
  },
  { name: 'notifications/get', weight: 3, request: (n) => ({ path: '/v2/notifications/get', data: { organizationId: ORGANIZATION, userId: userId(n) } }) },
  {
    name: 'crdt/get',
    weight: 3,
    request: () => ({ path: '/v2/crdt/get', data: { organizationId: ORGANIZATION, documentId: documentId(0), editorId: 'notes' } }),
  },
  // Writes
  {
    name: 'documents/add',
    weight: 4,
    request: (n) => ({
      path: '/v2/organizations/documents/add',
      data: { organizationId: ORGANIZATION, folderId: folderId(n), documents: [{ documentId: `new-doc-${n}`, documentName: `New ${n}` }] },
    }),
  },
  {
    name: 'users/update',
    weight: 3,
    request: (n) => ({ path: '/v2/users/update', data: { organizationId: ORGANIZATION, users: [{ userId: userId(n), name: `User ${n % USERS} (${n})` }] } }),
  },
  {
    name: 'permissions/add',
    weight: 3,
    request: (n) => ({
      path: '/v2/auth/permissions/add',
      data: {
        user: { userId: userId(n) },
        permissions: { resources: [{ type: 'document', id: documentId(n), organizationId: ORGANIZATION, accessRole: n % 2 ? 'viewer' : 'editor' }] },
      },
    }),
  },
  {
    name: 'crdt/update',
    weight: 3,
    request: (n) => ({
      path: '/v2/crdt/update',
      data: { organizationId: ORGANIZATION, documentId: documentId(0), editorId: 'notes', type: 'text', data: `Soak notes. Edit ${n % 1000}.` },
    }),
  },
  // Comments: a thread mentioning two users, with an activity (a webhook delivery) and notifications (inbox and mail).
  {
    name: 'commentannotations/add',
    weight: 8,
    request: (n) => ({
      path: '/v2/commentannotations/add',
      data: {
        organizationId: ORGANIZATION,
        documentId: documentId(n),
        commentAnnotations: [
          {
            commentData: [
              {
                commentText: `Comment ${n}: {{${userId(n + 1)}}} and {{${userId(n + 2)}}}, please check`,
                from: { userId: userId(n), name: `User ${n % USERS}` },
                taggedUserContacts: [userId(n + 1), userId(n + 2)].map((id) => ({ userId: id, contact: { userId: id, name: id } })),
                triggerActivities: true,
                triggerNotification: true,
              },
            ],
          },
        ],
      },
    }),
  },
  // Activities: five per request, each delivered to the webhook endpoint.
  {
    name: 'activities/add',
    weight: 8,
    request: (n) => ({
      path: '/v2/activities/add',
      data: {
        organizationId: ORGANIZATION,
        documentId: activityDocument(n),
        activities: Array.from({ length: 5 }, (_, i) => ({
          featureType: 'comment',
          actionType: 'comment.add',
          actionUser: { userId: userId(n + i), name: `User ${(n + i) % USERS}` },
          targetEntityId: `annotation-${n}`,
          entityData: { commentText: `Activity ${n}.${i}` },
        })),
      },
    }),
  },
];

function pick(n: number): Operation {
  const total = OPERATIONS.reduce((sum, op) => sum + op.weight, 0);
  // A fixed scramble of n, so the mix is spread evenly and the same in every run.
  let at = (n * 2654435761) % total;
  for (const op of OPERATIONS) {
    if (at < op.weight) return op;
    at -= op.weight;
  }
  return OPERATIONS[0]!;
}

const clock = (minutes: number) => `${Math.floor(minutes)}:${String(Math.floor((minutes % 1) * 60)).padStart(2, '0')}`;

/** Waits for a heap snapshot not in `known` to be complete (its size stops changing); its path. */
async function waitForSnapshot(dir: string, known: Set<string>): Promise<string | undefined> {
  for (let i = 0; i < 600; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const fresh = readdirSync(dir).filter((name) => name.endsWith('.heapsnapshot') && !known.has(name));
    if (fresh.length) {
      const path = join(dir, fresh[0]!);
      const size = statSync(path).size;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (statSync(path).size === size && size > 0) {
        known.add(fresh[0]!);
        return path;
      }
    }
  }
  return undefined;
}

async function soakEngine(engine: Engine, options: Options): Promise<EngineReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-soak-'));
  const database = engine === 'postgres' ? await createPostgresDatabase() : undefined;
  const receiver = await WebhookReceiver.start();
  const smtp = await new SmtpReceiver().start();
  let mails = 0;
  const port = await freePort();
  const snapshotDir = options.heapSnapshotDir ? join(options.heapSnapshotDir, engine) : undefined;
  if (snapshotDir) mkdirSync(snapshotDir, { recursive: true });
  const service = spawn(
    process.execPath,
    ['--max-semi-space-size=16', '--trace-gc', ...(snapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`] : []), MAIN],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        SQLITE_FILE: join(dataDir, 'svc.sqlite'),
        DATABASE_URL: database?.url ?? '',
        MASTER_KEY: randomBytes(32).toString('base64'),
        // Counted as in production, with limits the run cannot reach.
        RATE_LIMIT_API_KEY: '1000000000',
        RATE_LIMIT_WORKSPACE_CREATE: '0',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        SMTP_URL: smtp.url,
      },
      // Standard output carries the request log (written as in production, not kept) and V8's GC trace.
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let started = performance.now();
  const minutesNow = () => (performance.now() - started) / 60_000;
  const fullGcs: { x: number; y: number }[] = [];
  // Each isolate traces its own collections (`[pid:0xisolate]`); the main one is the first to
  // collect (a worker, such as SQLite's checkpointer, starts later), and the only one counted.
  let mainIsolate: string | undefined;
  createInterface({ input: service.stdout! }).on('line', (line) => {
    const isolate = /^\[\d+:(0x[0-9a-f]+)\]/.exec(line)?.[1];
    if (!isolate) return;
    mainIsolate ??= isolate;
    const live = isolate === mainIsolate ? liveAfterFullGc(line) : undefined;
    if (live !== undefined) fullGcs.push({ x: minutesNow(), y: live });
  });
  const exited = new Promise<void>((resolve) => service.once('exit', () => resolve()));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    service.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    if (service.exitCode === null && service.signalCode === null) service.kill('SIGKILL');
    receiver.stop();
    await smtp.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (database) await database.drop();
  };
  cleanups.add(stop);
  try {
    await waitForHealth(port, 60_000);
    const post = poster(port);
    const headers = await seedWorkspace(post, receiver);
    log(`[${engine}] service ready on port ${port}, seeded; ${options.minutes} min at ${options.rate} requests/s (at most ${MAX_IN_FLIGHT} in flight)`);

    const counts = { requests: 0, errors: 0, skipped: 0 };
    const firstErrors: string[] = [];
    let inFlight = 0;
    let sent = 0;
    const send = async (n: number) => {
      const op = pick(n);
      const { path, data } = op.request(n);
      inFlight++;
      try {
        await post(path, data, headers);
      } catch (error) {
        counts.errors++;
        if (firstErrors.length < 5) firstErrors.push(`${op.name}: ${(error as Error).message}`);
      } finally {
        counts.requests++;
        inFlight--;
      }
    };

    const samples: Sample[] = [];
    const snapshots: string[] = [];
    const knownSnapshots = new Set<string>();
    // Times count from the start of the load; full collections during start-up and seeding are left out.
    started = performance.now();
    fullGcs.length = 0;
    const durationMs = options.minutes * 60_000;
    const sample = async () => {
      // Mails are counted and dropped as they come, so the receiver keeps nothing.
      mails += smtp.mails.length;
      smtp.mails.length = 0;
      const entry: Sample = { minutes: minutesNow(), rssMb: residentMb(service.pid!), heap: await heapOf(port) };
      samples.push(entry);
      const deliveries = await receiver.count('/soak');
      const heap = entry.heap ? `${entry.heap.usedMb.toFixed(1)} of ${entry.heap.totalMb.toFixed(1)}` : '?';
      const live = fullGcs.at(-1)?.y.toFixed(1) ?? '–';
      log(
        `[${engine}] ${clock(entry.minutes)} / ${clock(options.minutes)}  RSS ${entry.rssMb.toFixed(1)} MB  heap ${heap} MB  live after last full GC ${live} MB  ` +
          `requests ${counts.requests} (errors ${counts.errors}, skipped ${counts.skipped})  deliveries ${deliveries}  mails ${mails}`,
      );
    };
    await sample();
    let nextSample = options.sampleSeconds * 1000;
    let snapshotAt = snapshotDir ? durationMs / 3 : Infinity;
    // Open loop at the rate: a request starts every 1/rate s; one that would exceed the in-flight cap is skipped and counted.
    for (;;) {
      const elapsed = performance.now() - started;
      if (elapsed >= durationMs) break;
      const due = Math.floor((elapsed / 1000) * options.rate);
      while (sent < due) {
        if (inFlight < MAX_IN_FLIGHT) void send(sent);
        else counts.skipped++;
        sent++;
      }
      if (elapsed >= nextSample) {
        nextSample += options.sampleSeconds * 1000;
        await sample();
      }
      if (elapsed >= snapshotAt && snapshotDir) {
        snapshotAt = Infinity;
        service.kill('SIGUSR2');
        const path = await waitForSnapshot(snapshotDir, knownSnapshots);
        if (path) snapshots.push(path);
        log(`[${engine}] heap snapshot: ${path ?? 'none written'}`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, 1000 / options.rate)));
    }
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await sample();
    if (snapshotDir) {
      service.kill('SIGUSR2');
      const path = await waitForSnapshot(snapshotDir, knownSnapshots);
      if (path) snapshots.push(path);
      log(`[${engine}] heap snapshot: ${path ?? 'none written'}`);
    }
    const deliveries = await receiver.count('/soak');

    const half = options.minutes / 2;
    const withHeap = samples.filter((s) => s.heap !== undefined);
    return {
      engine,
      minutes: Number(samples.at(-1)!.minutes.toFixed(2)),
      rss: trend(
        samples.map((s) => ({ x: s.minutes, y: s.rssMb })),
        half,
      )!,
      heapUsed: trend(
        withHeap.map((s) => ({ x: s.minutes, y: s.heap!.usedMb })),
        half,
      ),
      heapTotal: trend(
        withHeap.map((s) => ({ x: s.minutes, y: s.heap!.totalMb })),
        half,
      ),
      liveAfterFullGc: trend(fullGcs, half),
      requests: counts.requests,
      errors: counts.errors,
      skipped: counts.skipped,
      deliveries,
      mails,
      heapSnapshots: snapshots,
      firstErrors,
    };
  } finally {
    await stop();
    cleanups.delete(stop);
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.heapSnapshotDir && !existsSync(options.heapSnapshotDir)) mkdirSync(options.heapSnapshotDir, { recursive: true });
  log(`soak: ${options.engines.join(', ')}; ${options.minutes} min each, ${options.rate} requests/s, a sample every ${options.sampleSeconds} s`);
  const reports: EngineReport[] = [];
  for (const engine of options.engines) reports.push(await soakEngine(engine, options));
  log('');
  const rows: Record<string, unknown>[] = [];
  for (const r of reports) {
    const measures: [string, Trend | undefined][] = [
      ['RSS (sampled)', r.rss],
      ['heap used (sampled)', r.heapUsed],
      ['heap reserved (sampled)', r.heapTotal],
      ['live heap after full GC', r.liveAfterFullGc],
    ];
    for (const [measure, t] of measures)
      if (t)
        rows.push({
          engine: r.engine,
          measure,
          points: t.count,
          'start MB': t.startMb,
          'end MB': t.endMb,
          'max MB': t.maxMb,
          'MB/min': t.slopeMbPerMin,
          'MB/min, 2nd half': t.secondHalfSlopeMbPerMin,
        });
  }
  console.table(rows);
  for (const r of reports) {
    log(
      `${r.engine}: ${r.minutes} min, ${r.requests} requests, ${r.errors} errors, ${r.skipped} skipped (in-flight cap), ${r.deliveries} webhook deliveries, ${r.mails} mails; ` +
        `RSS ${r.rss.startMb} → ${r.rss.endMb} MB (max ${r.rss.maxMb}), ${r.rss.slopeMbPerMin} MB/min over the run, ${r.rss.secondHalfSlopeMbPerMin} MB/min over its second half` +
        (r.liveAfterFullGc
          ? `; live heap ${r.liveAfterFullGc.startMb} → ${r.liveAfterFullGc.endMb} MB, ${r.liveAfterFullGc.secondHalfSlopeMbPerMin} MB/min over the second half`
          : ''),
    );
    for (const error of r.firstErrors) log(`  error: ${error}`);
    for (const path of r.heapSnapshots) log(`  heap snapshot: ${path}`);
  }
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/soak-latest.json', `${JSON.stringify({ at: new Date().toISOString(), options, reports }, null, 2)}\n`);
  log('written to bench/results/soak-latest.json');
  if (reports.some((r) => r.errors > 0)) process.exitCode = 1;
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
