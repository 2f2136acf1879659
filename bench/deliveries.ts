import { type ChildProcess, fork } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { percentile } from './stats.js';

type Post = (path: string, data: unknown, headers?: Record<string, string>) => Promise<any>;
type Row = Record<string, unknown>;

const RECEIVER = new URL('./webhook-receiver.js', import.meta.url).pathname;
/** Events for the throughput runs. */
const EVENTS = 20_000;
const HANG_EVENTS = 10_000;
/** Events each side sends first, so neither is measured while its code is still being compiled. */
const WARM_UP_EVENTS = 2_000;
/** The lag run: 500 events/s for 10 s. */
const LAG_RATE = 500;
const LAG_SECONDS = 10;
const LAG_WARM_UP_SECONDS = 2;
/** What the service runs at once to one endpoint: a quarter of `DELIVERY_CONCURRENCY` (64). */
const ROUTE_CONCURRENCY = 16;

const now = () => performance.timeOrigin + performance.now();
const log = (message: string) => process.stdout.write(`${message}\n`);

/** The receiver process and its counters. */
class Receiver {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(): Promise<Receiver> {
    const child = fork(RECEIVER, [], { stdio: 'inherit' });
    const port = await new Promise<number>((resolve) => child.once('message', (message: { port: number }) => resolve(message.port)));
    return new Receiver(child, port);
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  private ask<T>(question: Record<string, string>, answer: string): Promise<T> {
    return new Promise((resolve) => {
      const onMessage = (message: Record<string, unknown>) => {
        if (!(answer in message)) return;
        this.child.off('message', onMessage);
        resolve(message[answer] as T);
      };
      this.child.on('message', onMessage);
      this.child.send(question);
    });
  }

  stats(path: string): Promise<{ count: number; first: number; last: number }> {
    return this.ask({ stats: path }, 'stats');
  }

  arrivals(path: string): Promise<Record<string, number>> {
    return this.ask({ arrivals: path }, 'arrivals');
  }

  /**
   * Deliveries per second at `path` once `count` arrived: from `since` (a count and a time, say
   * when the events were all written) or else the first arrival, to the last.
   */
  async rateWhen(path: string, count: number, since?: { count: number; at: number }, timeoutMs = 300_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const stats = await this.stats(path);
      if (stats.count >= count) return since ? ((count - since.count) / (stats.last - since.at)) * 1000 : (count / (stats.last - stats.first)) * 1000;
      if (Date.now() > deadline) throw new Error(`${path}: ${stats.count} of ${count} deliveries within ${timeoutMs} ms`);
      process.stdout.write(`\r  ${path}: ${stats.count.toLocaleString('en-US')} / ${count.toLocaleString('en-US')}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}

/** A new workspace key with advanced webhooks on and one endpoint per path. */
async function keyWithEndpoints(post: Post, receiver: Receiver, paths: string[]): Promise<Record<string, string>> {
  const workspace = (await post('/v2/workspace/create', { ownerEmail: `deliveries.${randomBytes(4).toString('hex')}@example.com` })).result.data;
  const apiKey = Object.keys(workspace.apiKeyList)[0]!;
  const token = (
    await post('/v2/workspace/authtokens/get', { apiKey }, { 'x-svc-workspace-id': workspace.id, 'x-svc-workspace-auth-token': workspace.authToken })
  ).result.data.authTokens[0].token;
  const headers = { 'x-svc-api-key': apiKey, 'x-svc-auth-token': token };
  await post('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true }, headers);
  for (const path of paths) await post('/v2/workspace/advancedwebhook/endpoints/create', { url: receiver.url(path) }, headers);
  return headers;
}

const activity = (id: string) => ({
  id,
  featureType: 'comment',
  actionType: 'comment.add',
  actionUser: { userId: 'bench-user', name: 'Bench User' },
  entityData: { commentText: 'x'.repeat(100) },
});

/** `count` events through activities add, 500 per request, two requests in flight. */
async function produce(post: Post, headers: Record<string, string>, prefix: string, count: number): Promise<void> {
  const batches = Array.from({ length: count / 500 }, (_, b) => Array.from({ length: 500 }, (_, i) => activity(`${prefix}-${b * 500 + i}`)));
  const next = async (): Promise<void> => {
    const batch = batches.shift();
    if (!batch) return;
    await post('/v2/activities/add', { organizationId: 'deliveries', documentId: prefix, activities: batch }, headers);
    await next();
  };
  await Promise.all([next(), next()]);
}

/**
 * The baseline: the same bodies and headers an advanced webhook carries, POSTed to the same
 * receiver with the same concurrency, over keep-alive connections; nothing else.
 */
async function bareLoop(receiver: Receiver, path: string, count: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: ROUTE_CONCURRENCY });
  const secret = randomBytes(24);
  let sent = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const id = `msg_${randomBytes(13).toString('hex')}`;
      const timestamp = Math.floor(Date.now() / 1000);
      const body = JSON.stringify({
        event: 'comment.add',
        actionType: 'comment.add',
        source: 'comment',
        data: { ...activity(`bare-${sent}`), metadata: { apiKey: 'k'.repeat(24), documentId: 'bare', organizationId: 'deliveries' }, timestamp: Date.now() },
        webhookId: id,
        platform: 'sdk',
      });
      const headers = {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`,
      };
      const req = request(receiver.url(path), { method: 'POST', agent, headers }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(body);
    });
  const worker = async () => {
    while (sent < count) {
      sent++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: ROUTE_CONCURRENCY }, worker));
  agent.destroy();
  return receiver.rateWhen(path, count);
}

/**
 * Milliseconds from each activities add's answer to its delivery's arrival, at a steady rate.
 * The first `LAG_WARM_UP_SECONDS` at that rate are not counted: a steady state is measured, not
 * the compiling of the one-activity path.
 */
async function lag(servicePort: number, receiver: Receiver, headers: Record<string, string>): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const answered: Record<string, number> = {};
  const send = (id: string) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ data: { organizationId: 'deliveries', documentId: 'lag', activities: [activity(id)] } });
      const req = request(
        {
          host: '127.0.0.1',
          port: servicePort,
          path: '/v2/activities/add',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            answered[id] = now();
            if (res.statusCode === 200) resolve();
            else reject(new Error(`activities add: HTTP ${res.statusCode}`));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  /** Sends `count` adds at `LAG_RATE`, ids `<prefix>-<n>`. */
  const steady = async (prefix: string, count: number) => {
    const started = now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const wait = started + (i * 1000) / LAG_RATE - now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      inFlight.push(send(`${prefix}-${i}`));
    }
    await Promise.all(inFlight);
  };
  const total = LAG_RATE * LAG_SECONDS;
  await steady('lag-warm', LAG_RATE * LAG_WARM_UP_SECONDS);
  await steady('lag', total);
  await receiver.rateWhen('/lag', total + LAG_RATE * LAG_WARM_UP_SECONDS);
  agent.destroy();
  const arrived = await receiver.arrivals('/lag');
  return Array.from({ length: total }, (_, i) => arrived[`lag-${i}`]! - answered[`lag-${i}`]!);
}

/**
 * The delivery pipeline's numbers (issue: webhooks): throughput to a local receiver against a
 * bare loop POSTing the same bodies with the same concurrency, lag from the API's answer to the
 * receiver at 500 events/s, and whether an endpoint that hangs for 15 s slows another one.
 */
export async function measureDeliveries(post: Post, servicePort: number, analyse: () => Promise<void>): Promise<{ rows: Row[]; notes: string[] }> {
  const receiver = await Receiver.start();
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    log('deliveries: warming up both sides…');
    await produce(post, await keyWithEndpoints(post, receiver, ['/warm']), 'warm', WARM_UP_EVENTS);
    await receiver.rateWhen('/warm', WARM_UP_EVENTS);
    await bareLoop(receiver, '/bare-warm', WARM_UP_EVENTS);
    // The outbox tables have rows now: PostgreSQL plans with statistics from here on.
    await analyse();
    log(`\ndeliveries: ${EVENTS.toLocaleString('en-US')} events to one endpoint…`);
    const fastKey = await keyWithEndpoints(post, receiver, ['/fast']);
    await produce(post, fastKey, 'fast', EVENTS);
    // Measured from when the last event was written: the outbox draining, not the API writing.
    const service = await receiver.rateWhen('/fast', EVENTS, { count: (await receiver.stats('/fast')).count, at: now() });
    log(`\n  bare loop, ${ROUTE_CONCURRENCY} at a time…`);
    const bare = await bareLoop(receiver, '/bare', EVENTS);
    log('');
    const name = `deliveries, ${EVENTS.toLocaleString('en-US')} to one endpoint (deliveries/s)`;
    rows.push(
      { scenario: name, target: 'baseline', 'req/s': Math.round(bare) },
      { scenario: name, target: 'service', 'req/s': Math.round(service) },
      { scenario: name, target: 'ratio service/baseline', 'req/s': Number((service / bare).toFixed(2)) },
    );
    notes.push(
      `deliveries: ${Math.round(service).toLocaleString('en-US')}/s against a bare loop's ${Math.round(bare).toLocaleString('en-US')}/s at ${ROUTE_CONCURRENCY} in flight: ${(service / bare).toFixed(2)}×`,
    );

    log(`deliveries: lag at ${LAG_RATE} events/s for ${LAG_SECONDS} s…`);
    const lags = (await lag(servicePort, receiver, await keyWithEndpoints(post, receiver, ['/lag']))).sort((a, b) => a - b);
    log('');
    const [p50, p99, max] = [percentile(lags, 50), percentile(lags, 99), lags.at(-1)!].map((ms) => Number(ms.toFixed(1)));
    rows.push({ scenario: `deliveries, lag from answer to arrival at ${LAG_RATE}/s (ms)`, target: 'service', 'p50 ms': p50, 'p99 ms': p99, 'max ms': max });
    notes.push(
      `deliveries: lag from the API's answer to the receiver at ${LAG_RATE} events/s: p50 ${p50} ms, p99 ${p99} ms, max ${max} ms (${lags.length} events)`,
    );

    log(`deliveries: ${HANG_EVENTS.toLocaleString('en-US')} events to one endpoint alone, then beside one that hangs, twice over…`);
    // Alone, beside, alone, beside: drift on a shared machine falls on both sides alike, and the
    // second beside run finds the hanging endpoint known to be slow.
    const aloneKey = await keyWithEndpoints(post, receiver, ['/alone']);
    const besideKey = await keyWithEndpoints(post, receiver, ['/beside', '/hang']);
    const run = async (key: Record<string, string>, path: string, round: number) => {
      const before = (await receiver.stats(path)).count;
      await produce(post, key, `${path.slice(1)}-${round}`, HANG_EVENTS);
      return receiver.rateWhen(path, before + HANG_EVENTS, { count: (await receiver.stats(path)).count, at: now() });
    };
    let alone = 0;
    let beside = 0;
    for (let round = 0; round < 2; round++) {
      alone += (await run(aloneKey, '/alone', round)) / 2;
      beside += (await run(besideKey, '/beside', round)) / 2;
    }
    log('');
    const hangName = `deliveries, 2 × ${HANG_EVENTS.toLocaleString('en-US')} to one endpoint beside one that hangs 15 s (deliveries/s)`;
    rows.push(
      { scenario: hangName, target: 'alone', 'req/s': Math.round(alone) },
      { scenario: hangName, target: 'beside a hanging one', 'req/s': Math.round(beside) },
      { scenario: hangName, target: 'ratio beside/alone', 'req/s': Number((beside / alone).toFixed(2)) },
    );
    notes.push(
      `deliveries: an endpoint beside one that hangs for 15 s gets ${(beside / alone).toFixed(2)}× the deliveries/s it gets alone (${Math.round(beside)} vs ${Math.round(alone)})`,
    );
  } finally {
    receiver.stop();
  }
  return { rows, notes };
}
