import { checkBounds } from './bounds.js';
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { SCENARIOS, UPSTREAM_COMMENT_ADD, type Scenario, type Seed } from './scenarios.js';
import { bareCommentAddRate } from './pgbench.js';
import { openBareDatabase } from './bare-database.js';
import { activitiesPageToken, seed, seedActivities, seedComments, seedCrdt, seedJudgments } from './seed.js';
import { measureDeliveries } from './deliveries.js';
import { freePort, waitForHealth } from '../test/helpers/service-process.js';
import { SmtpReceiver } from '../test/helpers/smtp-receiver.js';
import { measureMail } from './mail.js';
import { cpuSeconds, profileArgs, residentMb, type StartService } from './processes.js';
import { measureLive } from './live.js';
import { median, percentile, ratiosByTurn } from './stats.js';

type Post = (path: string, data: unknown, headers?: Record<string, string>) => Promise<any>;

/**
 * `npm run bench`: starts the built service on a freshly seeded database (SQLite by default,
 * PostgreSQL with BENCH_DATABASE_URL), and a bare node:http baseline doing the same work on the
 * same database; drives each with autocannon in turn and prints both with their ratio.
 * Each request scenario runs on the service on each HTTP framework (BENCH_ADAPTERS, default
 * `fastify,express`), side by side on the same database, each with its ratio to the baseline.
 * Settings: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 10), BENCH_DATABASE_URL,
 * BENCH_ONLY (run only scenarios whose name contains it, or one of its `|`-separated parts),
 * BENCH_CPU_PROF_DIR (profile the service, and the live run's relay, into that folder with --cpu-prof), BENCH_REDIS_URL (the live
 * run's Redis, default REDIS_URL or the local one), BENCH_LIVE_WORKERS (the live fan-out client's threads, default 2),
 * BENCH_LIVE_FAN_OUT_PAIRS (turns of relay and service at the issue's fan-out load, default 3),
 * BENCH_PAIRS (turns of baseline and service in a scenario with a baseline, default 3).
 */
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
/**
 * A scenario with a baseline runs in turns: baseline, service, baseline, service, ..., each turn
 * `DURATION / PAIRS` seconds rounded to whole seconds, so each side runs about `DURATION` in all. On a shared machine one
 * pair's ratio moved by a tenth between runs minutes apart (drift falls on whichever side runs
 * then); the median of the turns' ratios is the one reported and judged.
 */
const PAIRS = Math.max(1, Math.round(Number(process.env.BENCH_PAIRS ?? 3)));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** `BENCH_ONLY`'s parts (names hold commas, so `|` separates them); a name containing one is selected, '' selects all. */
const ONLY = (process.env.BENCH_ONLY ?? '').split('|');
const MAIN = new URL('../src/main.js', import.meta.url).pathname;
const BASELINE = new URL('./baseline-server.js', import.meta.url).pathname;

const log = (message: string) => process.stdout.write(`${message}\n`);

/** How many times a setup request answered 503 UNAVAILABLE is sent again, after its Retry-After, as a careful client does. */
const UNAVAILABLE_RETRIES = 5;

async function post(port: number, path: string, data: unknown, headers: Record<string, string> = {}): Promise<any> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ data }),
    });
    const body = await response.json();
    if (response.ok) return body;
    // The database was busy (seeding fires many writes at once; a profiled service is slower): nothing was stored.
    if (response.status === 503 && attempt < UNAVAILABLE_RETRIES) {
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    throw new Error(`${path}: ${JSON.stringify(body)}`);
  }
}

/** One autocannon run; `p50` is exact (autocannon's own histogram keeps whole milliseconds). */
async function drive(port: number, scenario: Scenario, seeded: Seed, duration: number): Promise<{ result: autocannon.Result; p50: number }> {
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}${scenario.path}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...scenario.headers(seeded) },
        body: JSON.stringify(scenario.body(seeded)),
        connections: CONNECTIONS,
        duration,
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, _status, _bytes, milliseconds) => times.push(milliseconds));
  });
  times.sort((a, b) => a - b);
  return { result, p50: Number((times[Math.floor(times.length / 2)] ?? 0).toFixed(2)) };
}

/** The service on each framework measured (`BENCH_ADAPTERS`), each with its port. */
interface ServiceTarget {
  adapter: string;
  port: number;
  /** Its process, once started: what its CPU is read from. */
  pid?: number;
}

/** The row label of the service on one framework. */
const serviceLabel = (adapter: string) => `service (${adapter})`;

/**
 * Waits until the service's outbox holds no delivery due: the work an earlier run left behind
 * (a notifying comment add's inbox fan-out, say, which goes on for seconds after its run on a slow
 * machine) would otherwise be measured with the next run, and a scenario's result would depend
 * on what ran before it. Logs how long it waited when it did.
 */
async function outboxDrained(database: string): Promise<void> {
  const db = openBareDatabase(database);
  const started = Date.now();
  let due = 0;
  let dueFirst: number | undefined;
  try {
    for (;;) {
      const [row] = await db.query<{ due: number | string }>("SELECT count(*) AS due FROM outbox_delivery WHERE status = 'pending' AND next_attempt_at <= ?", [
        Date.now(),
      ]);
      due = Number(row!.due);
      dueFirst ??= due;
      if (!due || Date.now() - started > OUTBOX_DRAIN_LIMIT_MS) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await db.close();
  }
  const waited = (Date.now() - started) / 1000;
  if (due) log(`the outbox still has ${due} deliveries due after ${waited.toFixed(0)} s: measuring beside them`);
  else if (dueFirst) log(`waited ${waited.toFixed(1)} s for the outbox to drain (${dueFirst} deliveries were due)`);
}
/** How long a run waits for the outbox to drain before measuring anyway. */
const OUTBOX_DRAIN_LIMIT_MS = 300_000;

/** One scenario on the service on each framework (and on the baseline, where it has one, then the ratios). */
async function measureScenario(
  scenario: Scenario,
  seeded: Seed,
  services: ServiceTarget[],
  baseline: { port: number; pid: number },
  quiet: () => Promise<void>,
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  const request = (scenario.body(seeded) as { data: unknown }).data;
  const targets: { label: string; port: number; pid?: number }[] = [
    ...(scenario.baseline ? [{ label: 'baseline', ...baseline }] : []),
    ...services.map(({ adapter, port, pid }) => ({ label: serviceLabel(adapter), port, pid })),
  ];
  if (scenario.baseline) {
    // Both sides answer the same `data`, and the same fields beside it where the service has some.
    const compared = (result: Record<string, unknown>) =>
      Object.fromEntries(['data', ...Object.keys(scenario.beside?.(result.data) ?? {})].map((key) => [key, result[key]]));
    const [fromBaseline, ...fromServices] = await Promise.all(
      targets.map(async ({ port }) => compared((await post(port, scenario.path, request, scenario.headers(seeded))).result)),
    );
    fromServices.forEach((fromService, i) => {
      if (!isDeepStrictEqual(fromService, fromBaseline))
        throw new Error(
          `${scenario.name}: ${targets[i + 1]!.label} and baseline disagree:\n${JSON.stringify(fromService).slice(0, 500)}\n${JSON.stringify(fromBaseline).slice(0, 500)}`,
        );
    });
  }
  const against = scenario.against === undefined ? undefined : SCENARIOS.find((s) => s.name === scenario.against);
  if (scenario.against !== undefined && !against) throw new Error(`${scenario.name}: no scenario named ${scenario.against}`);
  // Without a baseline or a scenario to compare with there is no ratio to steady: one run of DURATION.
  const turns = scenario.baseline || against ? PAIRS : 1;
  // Whole seconds: autocannon ends a run on its next one-second tick (1.3 s ran 2 s).
  const seconds = Math.max(1, Math.round(DURATION / turns));
  /** Each target's turns, in order; `seconds` as autocannon measured the run. */
  const runs = new Map<string, { requests: number; seconds: number; perSecond: number; p50: number; p99: number; cpuSeconds?: number }[]>();
  /** Each target's probe rows (a scenario with a probe has no baseline: one turn), after its own row. */
  const probeRows = new Map<string, Record<string, unknown>[]>();
  /** Each target's p50 of `against`, by turn (each measured right before the scenario's own turn). */
  const againstP50 = new Map<string, number[]>();
  for (let turn = 0; turn < turns; turn++) {
    for (const { label, port, pid } of targets) {
      await quiet();
      // Warm-up, before each target's first turn: its code compiled before it is measured.
      if (turn === 0) for (const warmed of against ? [against, scenario] : [scenario]) await drive(port, warmed, seeded, 2);
      const turnText = turns > 1 ? `turn ${turn + 1} of ${turns}, ` : '';
      if (against) {
        log(`${against.name} (against ${scenario.name}): ${label}, ${turnText}${seconds} s…`);
        const { p50 } = await drive(port, against, seeded, seconds);
        (againstP50.get(label) ?? againstP50.set(label, []).get(label)!).push(p50);
      }
      log(`${scenario.name}: ${label}, ${turnText}${seconds} s…`);
      let running = true;
      const probed = scenario.probe?.run(port, seeded, () => running);
      const cpuBefore = pid === undefined ? 0 : cpuSeconds(pid);
      const { result, p50 } = await drive(port, scenario, seeded, seconds).finally(() => (running = false));
      if (result.non2xx || result.errors) throw new Error(`${scenario.name} (${label}): ${result.non2xx} non-2xx, ${result.errors} errors`);
      const list = runs.get(label) ?? runs.set(label, []).get(label)!;
      list.push({
        requests: result.requests.total,
        seconds: result.duration,
        perSecond: result.requests.average,
        p50,
        p99: result.latency.p99,
        ...(pid === undefined ? {} : { cpuSeconds: cpuSeconds(pid) - cpuBefore }),
      });
      if (probed) {
        const latencies = (await probed).sort((a, b) => a - b);
        (probeRows.get(label) ?? probeRows.set(label, []).get(label)!).push({
          scenario: scenario.name,
          target: `${label}: ${scenario.probe!.name} (${latencies.length} probes)`,
          'p50 ms': Number((percentile(latencies, 50) || 0).toFixed(1)),
          'p99 ms': Number((percentile(latencies, 99) || 0).toFixed(1)),
        });
      }
    }
  }
  // A target's row: its turns together (requests over the time they ran), latencies their median, and
  // the CPU its process spent per answer (all its threads): steadier than requests/s on a machine
  // the client shares, since it does not depend on what the client got of the cores.
  const cpuPerRequest = new Map<string, number | undefined>();
  for (const { label } of targets) {
    const list = runs.get(label)!;
    const requests = list.reduce((sum, run) => sum + run.requests, 0);
    const cpu =
      list.some((run) => run.cpuSeconds === undefined) || !requests
        ? undefined
        : Math.round((list.reduce((sum, run) => sum + run.cpuSeconds!, 0) * 1e6) / requests);
    cpuPerRequest.set(label, cpu);
    rows.push({
      scenario: scenario.name,
      target: label,
      'req/s': Math.round(requests / list.reduce((sum, run) => sum + run.seconds, 0)),
      'p50 ms': median(list.map((run) => run.p50)),
      'p99 ms': median(list.map((run) => run.p99)),
      'CPU µs/req': cpu,
    });
    rows.push(...(probeRows.get(label) ?? []));
  }
  // Each service's ratios, turn by turn (each turn's two runs made one right after the other), and their median.
  const baselineRuns = runs.get('baseline');
  for (const { adapter } of services) {
    const label = serviceLabel(adapter);
    const serviceRuns = runs.get(label)!;
    const theirs = againstP50.get(label);
    if (against && theirs) {
      const ratios = ratiosByTurn(
        serviceRuns.map((run) => run.p50),
        theirs,
        0.01,
      );
      log(
        `${scenario.name}: p50 against ${against.name} (${adapter}) by turn ${ratios.map((ratio) => `${ratio.toFixed(2)}×`).join(', ')}; ` +
          `median ${median(ratios).toFixed(2)}× (${median(serviceRuns.map((run) => run.p50))} ms vs ${median(theirs)} ms)`,
      );
      rows.push({
        scenario: scenario.name,
        target: `p50 ratio ${adapter}/${against.name} (median of ${turns} turns)`,
        'p50 ms': Number(median(ratios).toFixed(2)),
      });
    }
    if (!baselineRuns) continue;
    const byTurn = (of: (run: { perSecond: number; p50: number }) => number) => ratiosByTurn(serviceRuns.map(of), baselineRuns.map(of), 0.001);
    const rates = byTurn((run) => run.perSecond);
    if (turns > 1)
      log(`${scenario.name}: ${adapter}/baseline by turn ${rates.map((ratio) => ratio.toFixed(2)).join(', ')}; median ${median(rates).toFixed(2)}`);
    const [serviceCpu, baselineCpu] = [cpuPerRequest.get(label), cpuPerRequest.get('baseline')];
    rows.push({
      scenario: scenario.name,
      target: turns > 1 ? `ratio ${adapter}/baseline (median of ${turns} turns)` : `ratio ${adapter}/baseline`,
      'req/s': Number(median(rates).toFixed(2)),
      'p50 ms': Number(median(byTurn((run) => run.p50)).toFixed(2)),
      'CPU µs/req': serviceCpu && baselineCpu ? Number((serviceCpu / baselineCpu).toFixed(2)) : undefined,
    });
  }
  return rows;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const masterKey = randomBytes(32).toString('base64');
  const database = process.env.BENCH_DATABASE_URL ?? join(dataDir, 'svc.sqlite');
  // The first framework serves the seeding, deliveries and mail runs; the others only the request scenarios.
  const adapters = (process.env.BENCH_ADAPTERS ?? 'fastify,express')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const services: ServiceTarget[] = [];
  for (const adapter of adapters) services.push({ adapter, port: await freePort() });
  const servicePort = services[0]!.port;
  const baselinePort = await freePort();
  const children: ChildProcess[] = [];
  // The seeded database is ~30 MB; it goes with the run (a killed service leaves it unlocked).
  const stopAll = () => {
    children.forEach((child) => child.kill('SIGTERM'));
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.on('exit', stopAll);

  log(`database: ${database.startsWith('postgres') ? 'PostgreSQL' : 'SQLite'}; ${CONNECTIONS} connections, ${DURATION} s per run`);
  // The mail run's SMTP server: the service sends to it from the start.
  const mailReceiver = ONLY.some((part) => 'mail'.includes(part)) ? await new SmtpReceiver().start() : undefined;
  const started = Date.now();
  const profile = profileArgs();
  const startService: StartService = ({ adapter, port, first = false, env = {}, nodeArgs = [], stdout = 'ignore' }) => {
    const child = spawn(process.execPath, ['--max-semi-space-size=16', ...profile, ...nodeArgs, MAIN], {
      env: {
        ...process.env,
        HTTP_ADAPTER: adapter,
        // One instance migrates and delivers; the others only answer requests on the same database.
        ...(first ? {} : { MIGRATIONS_RUN: 'false', DELIVERY_CONCURRENCY: '0' }),
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        SQLITE_FILE: join(dataDir, 'svc.sqlite'),
        DATABASE_URL: database.startsWith('postgres') ? database : '',
        MASTER_KEY: masterKey,
        // Counted as in production, with a limit the run cannot reach.
        RATE_LIMIT_API_KEY: '1000000000',
        RATE_LIMIT_WORKSPACE_CREATE: '0',
        RATE_LIMIT_WORKSPACE_GET: '0',
        // Room for a full-size (1 MiB) editor in one request.
        BODY_LIMIT: '2mb',
        // As `npm start` and the image run it (see docs/reference/rules.md, "Memory arenas").
        MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
        // The delivery runs' receiver listens on loopback.
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        ...(mailReceiver ? { SMTP_URL: mailReceiver.url } : {}),
        ...env,
      },
      stdio: ['ignore', stdout, 'inherit'],
    });
    children.push(child);
    return child;
  };
  const service = startService({ ...services[0]!, first: true });
  services[0]!.pid = service.pid;
  await waitForHealth(servicePort, 10_000);
  const readyMs = Date.now() - started;
  log(`service (${services[0]!.adapter}) ready in ${readyMs} ms (migrations on a new database included)`);
  for (const other of services.slice(1)) {
    other.pid = startService(other).pid;
    await waitForHealth(other.port, 10_000);
    log(`service (${other.adapter}) ready on the same database`);
  }

  await new Promise((resolve) => setTimeout(resolve, 1500));
  const idleRssMb = residentMb(service.pid!);
  log(`service idle RSS after start: ${idleRssMb.toFixed(1)} MB`);
  const selected = SCENARIOS.filter((s) => ONLY.some((part) => s.name.includes(part)));
  const postToService: Post = (path, data, headers) => post(servicePort, path, data, headers);
  const seedStarted = Date.now();
  // The delivery and mail runs make keys of their own: alone (BENCH_ONLY=deliveries or mail) they need no seed.
  log(selected.length ? 'seeding through the API…' : 'no request scenario selected: not seeding');
  const seeded = selected.length ? await seed(postToService) : ({} as Seed);
  log(`seeded in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
  const analyse = async () => {
    if (!database.startsWith('postgres')) return;
    // A freshly bulk-loaded PostgreSQL has no statistics until autovacuum analyses it, and its
    // plans meanwhile can pick a wrong index; measure the steady state a deployment reaches.
    const db = openBareDatabase(database);
    await db.query('ANALYZE', []);
    await db.close();
    log('analysed (PostgreSQL statistics)');
  };
  await analyse();
  // Without a seed there is nothing to read "after seeding" (its bound is then not measured).
  const seededRssMb = selected.length ? residentMb(service.pid!) : undefined;
  if (seededRssMb !== undefined) log(`service RSS after seeding: ${seededRssMb.toFixed(1)} MB`);

  const baseline = fork(BASELINE, [], {
    env: { ...process.env, BASELINE_PORT: String(baselinePort), BENCH_DATABASE: database, MASTER_KEY: masterKey },
    stdio: 'inherit',
  });
  children.push(baseline);
  await new Promise<void>((resolve) => baseline.once('message', () => resolve()));

  const rows: Record<string, unknown>[] = [];
  const measure = async (scenarios: Scenario[]) => {
    for (const scenario of scenarios)
      rows.push(...(await measureScenario(scenario, seeded, services, { port: baselinePort, pid: baseline.pid! }, () => outboxDrained(database))));
  };
  const notes: string[] = [];
  // The activity log grows in two steps, so the same read is measured at 10,000 and 1,000,000.
  if (selected.some((s) => s.path.startsWith('/v2/activities/'))) {
    log('seeding 10,000 activities…');
    const small = await seedActivities(postToService, seeded, 0, 10);
    await analyse();
    await measure(selected.filter((s) => s.phase === 'activities-small'));
    log('growing the activity log to 1,000,000…');
    const large = await seedActivities(postToService, seeded, 10, 1000);
    const seconds = small.seconds + large.seconds;
    notes.push(
      `activities: 1,000,000 added in batches of 500 in ${seconds.toFixed(1)} s, ${Math.round(1_000_000 / seconds).toLocaleString('en-US')} activities/s`,
    );
    await analyse();
    seeded.deepActivitiesPageToken = await activitiesPageToken(postToService, seeded, 1000);
  }
  if (selected.some((s) => s.path.startsWith('/v2/commentannotations/'))) {
    log('seeding 10,000 comment threads…');
    const comments = await seedComments(postToService, seeded);
    seeded.deepCommentsPageToken = comments.deepPageToken;
    notes.push(`comments: 10,000 threads of two comments added in batches of 500 in ${comments.seconds.toFixed(1)} s`);
    await analyse();
  }
  if (selected.some((s) => s.path.startsWith('/v2/crdt/'))) {
    log('writing shared-editing content…');
    const { editedBytes, freshBytes } = await seedCrdt(postToService, seeded);
    notes.push(
      `crdt: state after 1,000 single-character updates to a 100 KB text is ${(editedBytes / freshBytes).toFixed(2)}× the state of the same text written at once (${editedBytes} vs ${freshBytes} bytes)`,
    );
  }
  if (selected.some((s) => s.path.startsWith('/v2/memory/'))) {
    log('seeding 1,000 judgments…');
    await seedJudgments(postToService, seeded, 0, 10);
    await analyse();
    await measure(selected.filter((s) => s.phase === 'judgments-small'));
    log('growing memory to 100,000 judgments…');
    const grown = await seedJudgments(postToService, seeded, 10, 1000);
    notes.push(`memory: 99,000 judgments added through activities add in ${grown.seconds.toFixed(1)} s`);
    await analyse();
  }
  await measure(selected.filter((s) => s.phase === undefined));
  const upstreamAdd = selected.find((s) => s.name.startsWith(`${UPSTREAM_COMMENT_ADD} (upstream`));
  if (upstreamAdd && database.startsWith('postgres')) {
    log('bare pgbench of the same writes…');
    const bare = await bareCommentAddRate(database, CONNECTIONS, DURATION);
    if (bare.perSecond === undefined) notes.push(`comment add vs pgbench: not measured (${bare.skipped})`);
    else {
      const served = rows.find((r) => r.scenario === upstreamAdd.name && r.target === serviceLabel(services[0]!.adapter))?.['req/s'] as number | undefined;
      rows.push({ scenario: upstreamAdd.name, target: 'bare pgbench (a thread row and 3 mention rows per transaction)', 'req/s': bare.perSecond });
      if (served !== undefined)
        rows.push({ scenario: upstreamAdd.name, target: 'ratio service/pgbench', 'req/s': Number((served / bare.perSecond).toFixed(2)) });
    }
  }
  if (mailReceiver) {
    const mail = await measureMail(postToService, mailReceiver);
    rows.push(...mail.rows);
    notes.push(...mail.notes);
    await mailReceiver.stop();
  }
  if (ONLY.some((part) => 'live'.includes(part))) {
    const live = await measureLive({
      servicePort,
      startService,
      adapter: services[0]!.adapter,
      duration: DURATION,
      redisUrl: process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    });
    rows.push(...live.rows);
    notes.push(...live.notes);
  }
  // Last: the hang run leaves attempts hanging until the service stops. 'live' is inside
  // 'deliveries': a part that selects the live run selects it alone.
  if (ONLY.some((part) => 'deliveries'.includes(part) && (part === '' || !'live'.includes(part)))) {
    await outboxDrained(database);
    const deliveries = await measureDeliveries(postToService, servicePort, analyse);
    rows.push(...deliveries.rows);
    notes.push(...deliveries.notes);
  }
  console.table(rows);
  const primary = serviceLabel(services[0]!.adapter);
  const serviceRate = (name: string) => rows.find((r) => r.target === primary && String(r.scenario).startsWith(name))?.['req/s'] as number | undefined;
  const first = serviceRate('documents/get, first page');
  const last = serviceRate('documents/get, last page');
  if (first && last) log(`documents/get: the last page costs ${(first / last).toFixed(2)}× the first (service throughput first/last)`);
  const p50 = (name: string) => rows.find((r) => r.target === primary && String(r.scenario).startsWith(name))?.['p50 ms'] as number | undefined;
  const at10k = p50('activities/get, documentId, page of 100, at 10k');
  const at1m = p50('activities/get, documentId, page of 100, at 1M');
  if (at10k !== undefined && at1m !== undefined)
    log(`activities/get: p50 at 1M records is ${(at1m / Math.max(at10k, 0.01)).toFixed(2)}× the p50 at 10k (${at1m} ms vs ${at10k} ms)`);
  const page1 = p50('activities/get, whole organization, page 1 ');
  const page1000 = p50('activities/get, whole organization, page 1,000');
  if (page1 !== undefined && page1000 !== undefined)
    log(`activities/get: p50 of page 1,000 is ${(page1000 / Math.max(page1, 0.01)).toFixed(2)}× page 1 (${page1000} ms vs ${page1} ms)`);
  const suggestSmall = p50('memory/suggest, document scope, at 1k');
  const suggestLarge = p50('memory/suggest, document scope, at 100k');
  if (suggestSmall !== undefined && suggestLarge !== undefined)
    log(
      `memory/suggest: p50 at 100k judgments is ${(suggestLarge / Math.max(suggestSmall, 0.01)).toFixed(2)}× the p50 at 1k (${suggestLarge} ms vs ${suggestSmall} ms)`,
    );
  for (const note of notes) log(note);
  const bounds = checkBounds({ rows, database: database.startsWith('postgres') ? 'postgres' : 'sqlite', idleRssMb, seededRssMb });
  log(`\nthe issues' bounds on ${database.startsWith('postgres') ? 'PostgreSQL' : 'SQLite'} (this run):`);
  console.table(bounds);
  const report = {
    at: new Date().toISOString(),
    database: database.startsWith('postgres') ? 'postgres' : 'sqlite',
    connections: CONNECTIONS,
    durationSeconds: DURATION,
    readyMs,
    idleRssMb: Number(idleRssMb.toFixed(1)),
    seededRssMb: seededRssMb === undefined ? null : Number(seededRssMb.toFixed(1)),
    rows,
    notes,
    bounds,
  };
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/latest.json', `${JSON.stringify(report, null, 2)}\n`);
  log('written to bench/results/latest.json');
  stopAll();
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
