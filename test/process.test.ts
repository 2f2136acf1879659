// @testScope adapter: binding the port and the SIGTERM drain belong to the HTTP pipeline of each adapter; the databases are its own (in-memory SQLite). Start-up before the framework serves is process-startup.test.ts.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { connect, createServer } from 'node:net';
import { after, describe, it } from 'node:test';
import { roomName } from '../src/live/room-names.js';
import { connectLive, eventually } from './helpers/live-clients.js';
import { apiKeyHeadersOn, freePort, logLines, postTo, startService, stopped, waitForHealth } from './helpers/service-process.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';

describe('the service process', () => {
  const children: ChildProcess[] = [];
  after(() => children.forEach((child) => child.kill('SIGKILL')));

  /** A service process on a free loopback port and a throw-away in-memory database, once it answers `/health`. */
  const serving = async (variables: Record<string, string> = {}) => {
    const port = await freePort();
    const service = startService({
      PORT: String(port),
      HOST: '127.0.0.1',
      MASTER_KEY: randomBytes(32).toString('base64'),
      SQLITE_FILE: ':memory:',
      ...variables,
    });
    children.push(service.child);
    await waitForHealth(port);
    return { port, service };
  };

  it('on a port already in use: one fatal line naming it, no success line, exit 1', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const service = startService({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', MASTER_KEY: randomBytes(32).toString('base64') });
      children.push(service.child);
      assert.equal(await service.exited, 1);
      const lines = logLines(service);
      const problems = lines.filter((line) => line.level >= 40);
      assert.deepEqual(
        problems.map(({ level, msg, code, address }) => ({ level, msg, code, address })),
        [{ level: 60, msg: `The service could not start: 127.0.0.1:${port} is already in use`, code: 'EADDRINUSE', address: `127.0.0.1:${port}` }],
        service.output(),
      );
      assert.equal(problems[0]!.err, undefined, 'no stack');
      assert.ok(!lines.some((line) => line.msg === 'Listening' || /successfully started/.test(line.msg)), 'no success line');
      assert.equal(lines.at(-1)?.level, 60, 'nothing after the fatal line');
    } finally {
      holder.close();
    }
  });

  it('on SIGTERM stops accepting, finishes the request in flight, and exits cleanly', async () => {
    const { port, service } = await serving({ LOG_LEVEL: 'info' });

    const body = JSON.stringify({ data: { ownerEmail: 'shutdown@example.com' } });
    let terminated!: () => void;
    const signalled = new Promise<void>((resolve) => (terminated = resolve));
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v2/workspace/create',
          // The server's 100 Continue says it has taken the request in (Node answers it as it
          // hands the request to the framework), so SIGTERM comes after, however loaded the machine.
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      // Half the body now, the rest after SIGTERM: the request is in flight throughout.
      req.on('continue', () => {
        req.write(body.slice(0, 10));
        setTimeout(() => {
          service.child.kill('SIGTERM');
          terminated();
          setTimeout(() => req.end(body.slice(10)), 300);
        }, 100);
      });
      req.flushHeaders();
    });

    await signalled;
    await new Promise((resolve) => setTimeout(resolve, 150));
    const refused = await new Promise<string | undefined>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve(undefined);
      });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    });
    assert.equal(refused, 'ECONNREFUSED', 'new connections are refused once shutdown starts');
    const response = await inFlight;
    assert.equal(response.status, 200, response.body);
    assert.equal(JSON.parse(response.body).result.status, 'success');
    assert.equal(await service.exited, 0, service.output());
    // One line each: the signal, what the drain waits for (this request), the exit.
    const lines = logLines(service);
    const shutdown = lines.slice(lines.findIndex((line) => line.msg === 'SIGTERM received: shutting down'));
    assert.deepEqual(
      shutdown.filter((line) => line.context === undefined && line.msg !== 'request completed').map((line) => line.msg),
      [
        'SIGTERM received: shutting down',
        'Draining: waiting for requests in flight, live rooms to be stored and deliveries to end',
        'Exiting: shut down cleanly',
      ],
      service.output(),
    );
    assert.equal(shutdown[0]!.signal, 'SIGTERM');
    assert.equal(shutdown[1]!.inFlightRequests, 1);
    const exit = shutdown.at(-1)!;
    assert.equal(exit.msg, 'Exiting: shut down cleanly', `the exit is the last line:\n${shutdown.map((line) => JSON.stringify(line)).join('\n')}`);
    assert.equal(exit.code, 0);
    assert.ok(typeof exit.elapsedMs === 'number' && exit.elapsedMs >= 0);
  });

  it('a shutdown that outlasts SHUTDOWN_TIMEOUT_MS exits 1 with one line naming what was still pending', async () => {
    const { port, service } = await serving({ LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '1500' });
    // A request whose body never ends holds the shutdown.
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.on('error', () => undefined);
    // Node answers `100 Continue` as it hands the request to the framework: then it is in flight.
    const continued = new Promise((resolve) => socket.on('data', (chunk: Buffer) => chunk.toString().includes('100 Continue') && resolve(undefined)));
    socket.write('POST /v2/workspace/create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n');
    await continued;
    socket.write('{"data":');
    try {
      const { code, lines } = await stopped(service);
      assert.equal(code, 1, service.output());
      const exit = lines.at(-1)!;
      assert.equal(exit.msg, 'Exiting: the shutdown did not end within SHUTDOWN_TIMEOUT_MS', service.output());
      assert.equal(exit.level, 50);
      assert.equal(exit.code, 1);
      assert.equal(exit.inFlightRequests, 1);
      assert.ok((exit.elapsedMs as number) >= 1500);
    } finally {
      socket.destroy();
    }
  });

  it('the drain line counts the live rooms to store and the deliveries in flight it waits for', async () => {
    const receiver = await new WebhookReceiver().start();
    receiver.answers.set('/slow', 'hang');
    const clients: { close(): void }[] = [];
    try {
      const { port, service } = await serving({
        LOG_LEVEL: 'info',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // Attempts in flight get half of it to end, then are handed back.
        SHUTDOWN_TIMEOUT_MS: '3000',
      });
      const headers = await apiKeyHeadersOn(port, `drain.${randomBytes(4).toString('hex')}@example.com`);
      const call = async (path: string, data: unknown) => {
        const answer = await postTo(port, path, data, headers);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return answer.body.result;
      };
      await call('/v2/workspace/advancedwebhookconfig/update', { isEnabled: true });
      await call('/v2/workspace/advancedwebhook/endpoints/create', { url: receiver.url('/slow') });
      const place = { organizationId: 'org', documentId: 'doc', editorId: 'ed' };
      await call('/v2/activities/add', {
        organizationId: place.organizationId,
        documentId: place.documentId,
        activities: [{ featureType: 'comment', actionType: 'comment.add', actionUser: { userId: 'ana' } }],
      });
      await call('/v2/crdt/add', { ...place, type: 'text', data: '' });
      // Two deliveries held by the receiver: the activity's event and the editor write's `crdt.update_data`.
      await receiver.waitFor('/slow', 2);
      const token = (await call('/v2/auth/token/get', { userId: 'ana' })).data.token as string;
      const live = connectLive(port, roomName({ apiKeyId: headers['x-svc-api-key']!, ...place }), token);
      clients.push(live);
      await live.synced;
      await eventually(() => live.provider.isSynced, 'synced');

      const { code, lines } = await stopped(service);
      assert.equal(code, 0, service.output());
      const drain = lines.find((line) => line.msg.startsWith('Draining'));
      assert.deepEqual(
        {
          inFlightRequests: drain?.inFlightRequests,
          liveRoomsToStore: drain?.liveRoomsToStore,
          liveConnections: drain?.liveConnections,
          deliveriesInFlight: drain?.deliveriesInFlight,
        },
        { inFlightRequests: 0, liveRoomsToStore: 1, liveConnections: 1, deliveriesInFlight: 2 },
        service.output(),
      );
      assert.equal(lines.at(-1)?.msg, 'Exiting: shut down cleanly');
    } finally {
      clients.forEach((client) => client.close());
      await receiver.stop();
    }
  });

  it('after SIGTERM, a request on a kept-alive connection gets 503 UNAVAILABLE, not a reset', async () => {
    const { port, service } = await serving();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; body: string; connection?: string }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'GET', path: '/health', agent }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      assert.equal((await get()).status, 200);
      service.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 150));
      const answer = await get();
      assert.equal(answer.status, 503, answer.body);
      assert.equal(JSON.parse(answer.body).error.status, 'UNAVAILABLE');
      assert.equal(answer.connection, 'close');
      assert.equal(await service.exited, 0, service.output());
    } finally {
      agent.destroy();
    }
  });
});
