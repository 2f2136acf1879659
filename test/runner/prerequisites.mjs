// What the suite needs besides node_modules, checked in its first seconds: a supported Node,
// PostgreSQL when a PostgreSQL combination runs, Redis for the files that use it, and Debian's
// Chromium for the browser files. What can be set up is set up (Chromium when running as root,
// a throw-away redis-server when the binary exists); anything else stops the run at once with
// the one command that fixes it. Plain JavaScript, so it runs before anything is installed.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { delimiter, join } from 'node:path';

const SUPPORTED_NODE = [20, 22, 24];

/**
 * Checks (and where it can, provides) what the chosen files need. Returns the environment
 * variables the workers must see, a promise that settles when slow set-up (Chromium) is done,
 * and a function that stops what was started.
 */
export async function prepare({ root, files, postgres, say, fail }) {
  const needs = (marker) => files.some((file) => readFileSync(join(root, file), 'utf8').includes(marker));
  const environment = {};
  const stops = [];

  const [major, minor] = process.versions.node.split('.').map(Number);
  if (!SUPPORTED_NODE.includes(major) || (major === 20 && minor < 19))
    fail(`Node ${process.versions.node} is not supported; use Node 22 or 24 LTS (20.19+ still works). See docs/testing.md.`);

  if (postgres) {
    const url = new URL(process.env.DATABASE_URL || process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
    const port = Number(url.port || 5432);
    if (!(await answers(url.hostname, port)))
      fail(
        `PostgreSQL does not answer at ${url.hostname}:${port}. Start it: ${postgresStartCommand()}  (or point TEST_POSTGRES_URL at one, or run npm test -- --engine sqlite)`,
      );
  }

  if (needs('REDIS_URL')) {
    const url = new URL(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
    const port = Number(url.port || 6379);
    if (!(await redisAnswers(url.hostname, port))) {
      if (process.env.REDIS_URL) fail(`Redis does not answer at REDIS_URL (${url.hostname}:${port}); start it or unset REDIS_URL`);
      if (!onPath('redis-server'))
        fail(`no Redis answers at ${url.hostname}:${port} and redis-server is not installed. Install it: sudo apt-get install -y redis-server`);
      const { url: started, stop } = await throwAwayRedis(fail);
      say(`== Redis: none answered at ${url.hostname}:${port}; started a throw-away redis-server at ${started}`);
      environment.REDIS_URL = started;
      stops.push(stop);
    }
  }

  let ready = Promise.resolve();
  const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (needs('helpers/browser') && !existsSync(chromium)) {
    if (process.env.CHROMIUM_PATH) fail(`CHROMIUM_PATH names ${chromium}, which does not exist`);
    const asRoot = process.getuid?.() === 0;
    if (!asRoot || !onPath('apt-get'))
      fail(`the browser tests need Debian's Chromium, which is missing. Install it: sudo apt-get install -y chromium  (or set CHROMIUM_PATH)`);
    say("== Chromium: installing Debian's package in the background (apt-get install chromium)");
    ready = installChromium().then(
      () => say('   Chromium installed'),
      (error) => fail(`could not install Chromium (${error.message}); run: apt-get install -y chromium`),
    );
  }

  return { environment, ready, stop: () => stops.forEach((stop) => stop()) };
}

function onPath(binary) {
  return (process.env.PATH || '').split(delimiter).some((folder) => folder && existsSync(join(folder, binary)));
}

function postgresStartCommand() {
  try {
    const versions = readdirSync('/etc/postgresql');
    if (versions.length) return `sudo pg_ctlcluster ${versions.sort().at(-1)} main start`;
  } catch {
    // Not Debian's layout: name the package instead.
  }
  return 'sudo apt-get install -y postgresql';
}

/**
 * Whether something answers at host:port within a second: accepts a connection, or, given
 * `hello`, also answers it with a reply that `expected` matches.
 */
function answers(host, port, hello, expected) {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 1000 });
    const settle = (result) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => (hello ? socket.write(hello) : settle(true)));
    socket.once('data', (data) => settle(expected.test(data.toString())));
    socket.once('timeout', () => settle(false));
    socket.once('error', () => settle(false));
  });
}

/** Whether a Redis answers PING at host:port within a second (an auth error is an answer too). */
const redisAnswers = (host, port) => answers(host, port, 'PING\r\n', /^(\+PONG|-NOAUTH)/);

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A redis-server on a free loopback port, keeping nothing on disk; stopped with the run. */
async function throwAwayRedis(fail) {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const stop = () => child.kill();
  process.once('exit', stop);
  for (let tries = 0; tries < 50; tries++) {
    if (await redisAnswers('127.0.0.1', port)) return { url: `redis://127.0.0.1:${port}`, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  stop();
  fail('a throw-away redis-server did not start within 5 s');
}

/** apt-get install chromium; when the package lists are missing or stale, once more after update. */
async function installChromium() {
  const aptGet = (args) =>
    new Promise((resolve, reject) => {
      let output = '';
      const child = spawn('apt-get', args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`apt-get ${args[0]} exited ${code}: ${output.trim().split('\n').at(-1)}`))));
    });
  try {
    await aptGet(['install', '-y', '-q', 'chromium']);
  } catch {
    await aptGet(['update', '-q']);
    await aptGet(['install', '-y', '-q', 'chromium']);
  }
}
