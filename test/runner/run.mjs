// `npm test`: installs what is missing, builds incrementally, and runs the test files on each
// combination of engine and HTTP adapter, many files at once, on a pool of worker processes.
// Plain JavaScript, so it runs before anything is built. See docs/testing.md.
import { execFileSync, fork, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prepare } from './prerequisites.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CACHE = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'collab-backend');
const DURATIONS = join(CACHE, 'test-durations.json');
const USAGE = `npm test [-- [file or pattern ...] [options]]

  file or pattern      test files to run: a path (test/users.test.ts) or part of one (users)
  --engine <e>         sqlite or postgres (default: both)
  --adapter <a>        fastify or express (default: SQLite on both, PostgreSQL on fastify)
  --name <regexp>      only tests whose name matches
  --watch              rebuild and run again on every change
  --jobs <n>           test files run at once (default: cores + 1)
  --quiet              print each file as it finishes, not every test
  --no-install, --no-build, --no-lint

With no file or pattern it also lints. PostgreSQL: a fresh database on TEST_POSTGRES_URL's server
(default postgres://postgres@127.0.0.1:5432/postgres), dropped at the end; or DATABASE_URL's own.`;

const { values: options, positionals: patterns } = parseArgs({
  allowPositionals: true,
  options: {
    engine: { type: 'string' },
    adapter: { type: 'string' },
    name: { type: 'string' },
    watch: { type: 'boolean', default: false },
    jobs: { type: 'string' },
    quiet: { type: 'boolean', default: false },
    'no-install': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    'no-lint': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
const fail = (message) => {
  console.error(`npm test: ${message}`);
  process.exit(2);
};
if (options.engine && !['sqlite', 'postgres'].includes(options.engine)) fail(`--engine is sqlite or postgres, not ${options.engine}`);
if (options.adapter && !['fastify', 'express'].includes(options.adapter)) fail(`--adapter is fastify or express, not ${options.adapter}`);
// Cores + 1. Five at once on two cores was tried (2026-11-29): the whole suite took 305, 373 and
// 426 s against 386 and 421 s (beside another run) with three: within this machine's drift; the slowest file
// (robustness on PostgreSQL) went from 34 s to 123-142 s, and slower files make timing-bound
// tests likelier to flake.
const jobs = options.jobs ? Number(options.jobs) : availableParallelism() + 1;
if (!Number.isInteger(jobs) || jobs < 1) fail(`--jobs is a whole number above 0, not ${options.jobs}`);

const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const say = (line) => console.log(line);

// ---------------------------------------------------------------------------------------------
// Install: `npm ci` when node_modules is missing or older than the lockfile, without install
// scripts. The embedded database's driver needs none on Node 22 and later: better-sqlite3 13
// brings its prebuilt Node-API binary inside the package. Node 20 loads 12 instead (the alias
// `better-sqlite3-node20`, see src/database/sqlite-driver.ts), which compiles from source
// (about 70 s, the bulk of an install); that addon is kept in a cache outside the clone, keyed
// by its version and Node's ABI, and reused while both stay the same.

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

function installIfNeeded() {
  const lock = readFileSync(join(ROOT, 'package-lock.json'));
  const stamp = join(ROOT, 'node_modules', '.installed-lockfile');
  const digest = createHash('sha256').update(lock).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  say('== install (npm ci)');
  const begun = Date.now();
  run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts']);
  if (NODE_MAJOR < 22) compileNode20Driver();
  writeFileSync(stamp, digest);
  say(`   installed in ${seconds(Date.now() - begun)}`);
}

function compileNode20Driver() {
  const driver = 'better-sqlite3-node20';
  const addon = `node_modules/${driver}/build/Release/better_sqlite3.node`;
  const { version } = JSON.parse(readFileSync(join(ROOT, `node_modules/${driver}/package.json`), 'utf8'));
  const cached = join(CACHE, 'native', `better-sqlite3-${version}-abi${process.versions.modules}-${process.platform}-${process.arch}.node`);
  if (existsSync(cached)) {
    mkdirSync(join(ROOT, dirname(addon)), { recursive: true });
    copyFileSync(cached, join(ROOT, addon));
  }
  if (!existsSync(cached) || !loads(driver)) {
    say(`   compiling ${driver} for Node ${NODE_MAJOR} (kept for later installs)`);
    run('npm', ['rebuild', driver]);
    mkdirSync(dirname(cached), { recursive: true });
    copyFileSync(join(ROOT, addon), cached);
  }
}

function loads(module) {
  try {
    execFileSync(process.execPath, ['-e', `new (require(${JSON.stringify(module)}))(':memory:').close()`], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function run(command, args, env = process.env) {
  execFileSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
}

// ---------------------------------------------------------------------------------------------
// Which files run where. Each file runs on every combination of engine and adapter, unless its
// first lines say `@testScope engine` (the adapter is irrelevant to it: it runs on each engine
// once), `@testScope adapter` (the engine is irrelevant: once per adapter) or `@testScope once`.
// Files in test/unit/ are pure logic: once.

const COMBINATIONS = [
  { engine: 'sqlite', adapter: 'fastify' },
  { engine: 'sqlite', adapter: 'express' },
  { engine: 'postgres', adapter: 'fastify' },
].map((combination) => ({ ...combination, name: `${combination.engine}/${combination.adapter}` }));

function chosenCombinations() {
  const chosen = COMBINATIONS.filter((c) => (!options.engine || c.engine === options.engine) && (!options.adapter || c.adapter === options.adapter));
  if (chosen.length) return chosen;
  const { engine, adapter } = options;
  return [{ engine, adapter, name: `${engine}/${adapter}` }];
}

function testFiles() {
  const found = [];
  const walk = (folder) => {
    for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) found.push(path);
    }
  };
  walk('test');
  return found.sort();
}

function scopeOf(file) {
  const declared = /@testScope (all|engine|adapter|once)\b/.exec(readFileSync(join(ROOT, file), 'utf8').slice(0, 4000))?.[1];
  return declared ?? (file.startsWith('test/unit/') ? 'once' : 'all');
}

/** The (combination, file) pairs to run, longest first by the last runs' times. */
function plan(combinations) {
  const files = testFiles().filter(
    (file) => !patterns.length || patterns.some((pattern) => file === pattern || file.includes(pattern.replace(/^dist\//, '').replace(/\.js$/, ''))),
  );
  if (!files.length) fail(`no test file matches ${patterns.join(', ')}`);
  const history = existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, 'utf8')) : {};
  const pairs = [];
  for (const file of files) {
    const scope = scopeOf(file);
    const seen = new Set();
    for (const combination of combinations) {
      // The first chosen combination stands for the others where the file says they are alike.
      const likeness = { all: combination.name, engine: combination.engine, adapter: combination.adapter, once: '' }[scope];
      if (seen.has(likeness)) continue;
      seen.add(likeness);
      const key = `${combination.name} ${file}`;
      pairs.push({ combination, file, key, dist: join(ROOT, 'dist', file.replace(/\.ts$/, '.js')), estimate: history[key] ?? 10_000 });
    }
  }
  return pairs.sort((a, b) => b.estimate - a.estimate);
}

// ---------------------------------------------------------------------------------------------
// Databases: SQLite needs nothing (each app gets a file in a fresh folder). PostgreSQL gets a
// fresh database for the run, beside which suites with delivery workers make their own.

async function postgresDatabase() {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, drop: async () => {} };
  const admin = process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const { default: pg } = await import('pg');
  const name = `svc_test_${Date.now()}_${process.pid}`;
  const query = async (sql) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  try {
    await query(`CREATE DATABASE ${name}`);
  } catch (error) {
    fail(`PostgreSQL at ${admin} refused to create a database (${error.message}); start it, set TEST_POSTGRES_URL, or run with --engine sqlite`);
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // Suites drop their own databases (named after this one); a worker killed mid-file cannot.
    drop: async () => {
      const { rows } = await query(`SELECT datname FROM pg_database WHERE datname = '${name}' OR datname LIKE '${name}\\_%'`);
      for (const row of rows) await query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Workers: a process per combination runs that combination's files one at a time; at most `jobs`
// files run at once, across combinations, longest first.

const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS || 600_000);

function spawnWorker(combination, environment) {
  const execArgv = ['--enable-source-maps', `--test-reporter=${join(ROOT, 'test/runner/report-to-runner.mjs')}`, '--test-reporter-destination=stdout'];
  if (options.name) execArgv.push(`--test-name-pattern=${options.name}`);
  const child = fork(join(ROOT, 'test/runner/worker.mjs'), [], { cwd: ROOT, execArgv, env: environment, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const worker = { combination, child, job: undefined, ready: new Promise((resolve) => child.once('message', resolve)) };
  const capture = (chunk) => {
    if (worker.job) worker.job.output += chunk;
  };
  child.stdout.on('data', capture);
  child.stderr.on('data', capture);
  return worker;
}

async function runPairs(pairs, environments) {
  const queue = [...pairs];
  const idle = [];
  const live = new Set();
  const results = [];
  let active = 0;
  return new Promise((resolve) => {
    const next = () => {
      while (active < jobs && queue.length) {
        const pair = queue.shift();
        active++;
        start(pair).then((result) => {
          results.push(result);
          active--;
          report(result);
          next();
        });
      }
      if (!active && !queue.length) {
        for (const worker of live) worker.child.send({ exit: true });
        resolve(results);
      }
    };
    const workerFor = async (combination) => {
      const index = idle.findIndex((worker) => worker.combination === combination);
      if (index >= 0) return idle.splice(index, 1)[0];
      // A worker is spawned only while every worker of its combination is busy, so a combination
      // never has more than `jobs` (a few hundred MB each), and none is retired for another's file:
      // that would pay again the module loading the pool exists to save.
      const worker = spawnWorker(combination, environments.get(combination));
      live.add(worker);
      await worker.ready;
      return worker;
    };
    const start = async (pair) => {
      const worker = await workerFor(pair.combination);
      const job = {
        ...pair,
        output: '',
        tests: { pass: 0, fail: 0, skip: 0, todo: 0 },
        failures: [],
        begun: Date.now(),
        cpu: cpuOf(worker.child.pid),
        current: [],
      };
      worker.job = job;
      const outcome = await new Promise((settle) => {
        const timer = setTimeout(() => settle(`timed out after ${seconds(FILE_TIMEOUT_MS)}, in ${job.current.join(' › ')}`), FILE_TIMEOUT_MS);
        const onMessage = (message) => {
          if (message.type === 'result') {
            job.current = message.path;
            if (!message.suite || message.outcome === 'skip') job.tests[message.outcome]++;
            if (message.outcome === 'fail' && message.error) job.failures.push({ path: message.path, error: message.error });
            if (!options.quiet && !message.suite)
              say(
                `   ${{ pass: '✔', fail: '✖', skip: '-', todo: '…' }[message.outcome]} ${pair.combination.name.padEnd(16)} ${message.path.join(' › ')} (${seconds(message.ms)})`,
              );
          } else if (message.type === 'load-error') job.failures.push({ path: ['loading the file'], error: message.error });
          else if (message.type === 'file-end') settle(undefined);
        };
        const onExit = (code, signal) => settle(`the worker exited (${signal ?? code}) during ${job.current.join(' › ') || 'the file'}`);
        worker.child.on('message', onMessage);
        worker.child.once('exit', onExit);
        worker.child.send({ run: pair.dist });
        job.cleanup = () => {
          clearTimeout(timer);
          worker.child.off('message', onMessage);
          worker.child.off('exit', onExit);
        };
      });
      job.cleanup();
      // A deprecation is an API going away under us (node-postgres queueing statements on a busy
      // client printed one, for pg 9): it fails the file that printed it, so it is seen when it
      // starts, not when the upgrade breaks. Node prints each one once per process.
      const deprecation = /^.*DeprecationWarning.*$/m.exec(job.output);
      if (deprecation) job.failures.push({ path: ['the file'], error: `printed a deprecation warning: ${deprecation[0].trim()}` });
      job.ms = Date.now() - job.begun;
      job.cpu = cpuOf(worker.child.pid) - job.cpu;
      worker.job = undefined;
      if (outcome) {
        job.failures.push({ path: ['the file'], error: outcome });
        live.delete(worker);
        worker.child.kill('SIGKILL');
      } else idle.push(worker);
      return job;
    };
    next();
  });
}

/** CPU seconds a process and its reaped children used so far (Linux; 0 elsewhere). */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

function report(job) {
  const failed = job.failures.length > 0;
  const counts = `${job.tests.pass} passed${job.tests.fail ? `, ${job.tests.fail} failed` : ''}${job.tests.skip ? `, ${job.tests.skip} skipped` : ''}`;
  say(`${failed ? '✖' : '✔'} ${seconds(job.ms).padStart(7)}  ${job.combination.name.padEnd(16)} ${job.file}  (${counts})`);
  for (const failure of job.failures) {
    say(`  ✖ ${failure.path.join(' › ')}`);
    say(failure.error.replace(/^/gm, '      '));
  }
  if (failed && job.output.trim()) say(`  output:\n${job.output.trimEnd().replace(/^/gm, '    | ')}`);
}

function summarize(results) {
  const perCombination = new Map();
  for (const job of results) {
    const counts = perCombination.get(job.combination.name) ?? { files: 0, pass: 0, fail: 0, skip: 0, todo: 0, ms: 0, cpu: 0 };
    counts.files++;
    counts.ms += job.ms;
    counts.cpu += job.cpu;
    for (const outcome of Object.keys(job.tests)) counts[outcome] += job.tests[outcome];
    perCombination.set(job.combination.name, counts);
  }
  say('\n== slowest files');
  for (const job of [...results].sort((a, b) => b.ms - a.ms).slice(0, 10))
    say(`${seconds(job.ms).padStart(9)}  ${`${job.cpu.toFixed(1)} s CPU`.padStart(11)}  ${job.combination.name.padEnd(16)} ${job.file}`);
  say('\n== tests');
  // The files' own time and their processes' CPU (browsers and database servers not counted):
  // on a machine whose speed drifts, CPU seconds compare runs better than the wall clock.
  for (const [name, counts] of perCombination)
    say(
      `   ${name.padEnd(16)} ${counts.files} files, ${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped; ${seconds(counts.ms)} in files, ${counts.cpu.toFixed(0)} s CPU`,
    );
  const failedFiles = results.filter((job) => job.failures.length);
  if (failedFiles.length) {
    say(`\n== ${failedFiles.length} files failed`);
    // Repeated here, shortened, because a CI log is often read from its tail only.
    for (const job of failedFiles) {
      say(`   ${job.combination.name.padEnd(16)} ${job.file}`);
      for (const failure of job.failures) {
        say(`     ✖ ${failure.path.join(' › ')}`);
        const lines = failure.error.split('\n');
        say(lines.slice(0, 12).join('\n').replace(/^/gm, '         '));
        if (lines.length > 12) say(`         … ${lines.length - 12} more lines above, in the file's report`);
      }
    }
  }
  return failedFiles.length === 0;
}

function remember(results) {
  const history = existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, 'utf8')) : {};
  for (const job of results) history[job.key] = job.ms;
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(DURATIONS, JSON.stringify(history, null, 1));
}

// ---------------------------------------------------------------------------------------------

const TSC = [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'];

async function main() {
  const combinations = chosenCombinations();
  const pairs = plan(combinations);
  const prerequisites = await prepare({
    root: ROOT,
    files: [...new Set(pairs.map((pair) => pair.file))],
    postgres: combinations.some((c) => c.engine === 'postgres'),
    say,
    fail,
  });
  Object.assign(process.env, prerequisites.environment);
  if (!options['no-install']) installIfNeeded();
  const everything = !patterns.length && !options.name;
  if (!options['no-build'] && !options.watch) {
    const begun = Date.now();
    say('== build (tsc, incremental; the console with esbuild)');
    run(process.execPath, TSC);
    run(process.execPath, [join(ROOT, 'console/build.mjs')]);
    say(`   built in ${seconds(Date.now() - begun)}`);
  }
  const lint = everything && !options['no-lint'] && !options.watch ? startLint() : undefined;

  const postgres = combinations.some((c) => c.engine === 'postgres') ? await postgresDatabase() : undefined;
  const cleanUp = async () => {
    prerequisites.stop();
    await postgres?.drop().catch((error) => console.error(`could not drop the test database: ${error.message}`));
  };
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])
    process.once(signal, () => cleanUp().then(() => process.exit(code)));
  const environments = new Map(
    combinations.map((combination) => {
      const environment = { ...process.env, HTTP_ADAPTER: combination.adapter, TEST_COMBINATION: combination.name };
      if (combination.engine === 'postgres') environment.DATABASE_URL = postgres.url;
      else delete environment.DATABASE_URL;
      return [combination, environment];
    }),
  );

  await prerequisites.ready;
  if (options.watch) return watch(pairs, environments);
  say(`== ${pairs.length} test files on ${combinations.map((c) => c.name).join(', ')}, ${jobs} at once`);
  const results = await runPairs(pairs, environments);
  await cleanUp();
  remember(results);
  let passed = summarize(results);
  if (lint) passed = (await lint) && passed;
  say(`\n== ${passed ? 'passed' : 'FAILED'} in ${seconds(Date.now() - started)}`);
  process.exit(passed ? 0 : 1);
}

/** ESLint and the formatter's check, beside the tests; resolves to whether both passed. */
function startLint() {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn('npm', ['run', '--silent', 'lint'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => {
      say(code === 0 ? '✔ lint' : `✖ lint\n${output.trimEnd().replace(/^/gm, '    | ')}`);
      resolve(code === 0);
    });
  });
}

/** Keeps tsc watching; after each build without errors, runs the chosen files again in fresh workers. */
function watch(pairs, environments) {
  let running = Promise.resolve();
  let pending = false;
  const tsc = spawn(process.execPath, [...TSC, '--watch', '--preserveWatchOutput'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let buffer = '';
  tsc.stdout.on('data', (chunk) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop();
    for (const line of lines) {
      const found = /Found (\d+) errors?\. Watching for file changes/.exec(line);
      if (!found) {
        if (/error TS/.test(line) || line.trim().startsWith('~') || /^\s/.test(line)) say(line);
        continue;
      }
      if (found[1] !== '0') {
        say(`== ${found[1]} type errors; waiting for the next change`);
        continue;
      }
      if (pending) continue;
      pending = true;
      running = running.then(async () => {
        pending = false;
        const begun = Date.now();
        const results = await runPairs(pairs, environments);
        const failed = results.filter((job) => job.failures.length).length;
        say(`== ${failed ? `${failed} files FAILED` : 'passed'} in ${seconds(Date.now() - begun)}; watching for changes (Ctrl-C stops)`);
      });
    }
  });
}

await main();
