import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import { LiveEditing } from '../src/live/live-editing.js';
import type { PresentUser } from '../src/live/dto/presence.dto.js';
import { roomName } from '../src/live/room-names.js';
import { startApp, type TestApp } from './helpers/app.js';
import { connectLive, eventually, lastPresence, liveStates, type LiveClient as Client } from './helpers/live-clients.js';
import { apiKeyHeadersOn, freePort, postTo, startService, waitForHealth } from './helpers/service-process.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { advancedEndpoint } from './helpers/webhooks.js';
import { agentFor, createKey, expectError, expectSuccess } from './factories/workspace.js';

/**
 * Live editing across a service's life and beyond one instance: presence over time, events of
 * stores, shutdown, two instances, kill -9. Each test runs services of its own (the shared-room
 * cases are in live-editing.test.ts).
 */
describe('live editing: presence, events, shutdown and several instances', () => {
  const clients: Client[] = [];
  after(() => {
    for (const client of clients) client.close();
  });

  const place = { organizationId: 'org-live', documentId: 'doc', editorId: 'body' };
  const room = (editorId: string, apiKeyId: string) => roomName({ apiKeyId, ...place, editorId });
  function connectTo(target: TestApp, name: string, token: string): Client {
    const client = connectLive(target.port, name, token);
    clients.push(client);
    return client;
  }

  it('presence: REST entries expire after LIVE_PRESENCE_TTL_SECONDS, live users come and go, and connected clients are told each change', async () => {
    const own = await startApp({ LIVE_PRESENCE_TTL_SECONDS: '2' });
    try {
      const ownKey = await createKey(own);
      const ownCall = agentFor(own, ownKey);
      const doc = { organizationId: place.organizationId, documentId: place.documentId };
      expectSuccess(await ownCall('/v2/crdt/add', { ...place, type: 'text', data: '' }));
      const token = expectSuccess(
        await ownCall('/v2/auth/generate_token', {
          userId: 'ana',
          userProperties: { name: 'Ana', email: 'ana@example.com' },
          permissions: { resources: [{ type: 'document', id: place.documentId, organizationId: place.organizationId }] },
        }),
      ).data.token as string;
      const present = async (caller = ownCall) =>
        expectSuccess(await caller('/v2/presence/get', doc), 'Presence retrieved successfully.').data as PresentUser[];
      const users = (list: PresentUser[] | undefined) => (list ?? []).map((user) => user.userId).join(',');
      const ana = { userId: 'ana', name: 'Ana', email: 'ana@example.com', status: 'online', live: true };

      const client = connectTo(own, room(place.editorId, ownKey.apiKey), token);
      await client.synced;
      await eventually(() => users(lastPresence(client)) === 'ana', 'the client told of its own user');
      assert.deepEqual(lastPresence(client), [ana]);
      assert.deepEqual(await present(), [ana]);

      assert.deepEqual(
        expectSuccess(await ownCall('/v2/presence/add', { ...doc, users: [{ userId: 'srv', name: 'Server', status: 'away' }] }), 'Presence added successfully.')
          .data,
        { success: true },
      );
      await eventually(() => users(lastPresence(client)) === 'ana,srv', 'the client told of the server entry');
      const [, added] = await present();
      assert.deepEqual({ ...added, expiresAt: undefined }, { userId: 'srv', name: 'Server', status: 'away', live: false, expiresAt: undefined });
      assert.ok(Date.parse(added!.expiresAt!) - Date.now() <= 2000 && Date.parse(added!.expiresAt!) > Date.now(), added!.expiresAt);
      // An update changes what it names; the rest stays.
      expectSuccess(await ownCall('/v2/presence/update', { ...doc, users: [{ userId: 'srv', status: 'online' }] }), 'Presence updated successfully.');
      assert.deepEqual((await present())[1]!.name, 'Server');
      assert.deepEqual((await present())[1]!.status, 'online');
      // Another key sees none of it.
      const otherKey = await createKey(own);
      assert.deepEqual(await present(agentFor(own, otherKey)), []);

      // Not refreshed, the entry expires, and the client is told without a request.
      await eventually(() => users(lastPresence(client)) === 'ana', 'the client told of the expiry', 5000);
      assert.equal(users(await present()), 'ana');
      // An update of a user with no entry adds one (a heartbeat after an expiry), as `online` but for what it sends.
      expectSuccess(await ownCall('/v2/presence/update', { ...doc, users: [{ userId: 'srv', name: 'Back' }] }));
      assert.deepEqual({ ...(await present())[1], expiresAt: undefined }, { userId: 'srv', name: 'Back', status: 'online', live: false, expiresAt: undefined });
      assert.deepEqual(expectSuccess(await ownCall('/v2/presence/delete', { ...doc, userIds: ['srv', 'nobody'] }), 'Presence deleted successfully.').data, {
        success: true,
      });
      await eventually(() => users(lastPresence(client)) === 'ana', 'the client told of the delete');
      // A server entry for a connected user: its fields win, and the user is still live.
      expectSuccess(await ownCall('/v2/presence/add', { ...doc, users: [{ userId: 'ana', name: 'Ana B.', status: 'busy' }] }));
      assert.deepEqual({ ...(await present())[0], expiresAt: undefined }, { ...ana, name: 'Ana B.', status: 'busy', expiresAt: undefined });
      expectSuccess(await ownCall('/v2/presence/delete', { ...doc, userIds: ['ana'] }));
      assert.deepEqual(await present(), [ana]);

      client.close();
      await eventually(async () => (await present()).length === 0, 'the live user gone once disconnected');

      expectError(await ownCall('/v2/presence/add', { ...doc, users: [] }), 400, 'INVALID_ARGUMENT', 'data.users must contain at least 1 item(s)');
      expectError(
        await ownCall('/v2/presence/add', { ...doc, users: [{ userId: 'x', email: 'not an address' }] }),
        400,
        'INVALID_ARGUMENT',
        'data.users[0].email must be a valid e-mail address',
      );
      expectError(await ownCall('/v2/presence/update', { ...doc, users: [{ name: 'No id' }] }), 400, 'INVALID_ARGUMENT', /data\.users\[0\]\.userId/);
      expectError(await ownCall('/v2/presence/delete', doc), 400, 'INVALID_ARGUMENT', /data\.userIds/);
      expectError(await ownCall('/v2/presence/get', { organizationId: place.organizationId }), 400, 'INVALID_ARGUMENT', /data\.documentId/);
    } finally {
      await own.close();
    }
  });

  it("events: a store of several users' typing is one crdt.update_data per user; a room nobody typed in stores nothing and tells nobody", async () => {
    const receiver = await new WebhookReceiver().start();
    const own = await startApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', DELIVERY_CONCURRENCY: '4' });
    try {
      const ownKey = await createKey(own);
      const ownCall = agentFor(own, ownKey);
      await advancedEndpoint(ownCall, receiver.url('/crdt'), { filterTypes: ['crdt.update_data'] });
      expectSuccess(await ownCall('/v2/crdt/add', { ...place, type: 'text', data: '' }));
      await receiver.waitFor('/crdt', 1);
      const name = room(place.editorId, ownKey.apiKey);
      const tokenOf = async (userId: string) => expectSuccess(await ownCall('/v2/auth/token/get', { userId })).data.token as string;
      const [ana, bob] = [connectTo(own, name, await tokenOf('ana')), connectTo(own, name, await tokenOf('bob'))];
      await Promise.all([ana.synced, bob.synced]);
      // Bob types last (after Ana's edit reached him), both within one debounce window.
      ana.text.insert(0, 'aa');
      await eventually(() => bob.text.toString() === 'aa', "ana's edit at bob's client");
      bob.text.insert(2, 'b');
      const hooks = (await receiver.waitFor('/crdt', 3)).slice(1);
      assert.deepEqual(hooks.map((hook) => hook.json.data.lastUpdatedBy).sort(), ['ana', 'bob']);
      assert.ok(
        hooks.every((hook) => hook.json.data.data === 'aab'),
        JSON.stringify(hooks.map((hook) => hook.json.data)),
      );
      assert.equal((expectSuccess(await ownCall('/v2/crdt/get', place)).data as { lastUpdatedBy: string }[])[0]!.lastUpdatedBy, 'bob');
      // Leaving after the store, and a client that only reads, store nothing more.
      ana.close();
      bob.close();
      const reader = connectTo(own, name, await tokenOf('cy'));
      await reader.synced;
      reader.close();
      await eventually(() => own.app.get(LiveEditing).documents.size === 0, 'the room unloaded');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.at('/crdt').length, 3);
    } finally {
      await own.close();
      await receiver.stop();
    }
  });

  it('stopping the service stores what was typed just before, before the debounce', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-live-'));
    const env = { DATA_DIR: dataDir, SQLITE_FILE: join(dataDir, 'svc.sqlite'), MASTER_KEY: randomBytes(32).toString('base64') };
    const first = await startApp(env);
    const ownKey = await createKey(first);
    const ownCall = agentFor(first, ownKey);
    expectSuccess(await ownCall('/v2/crdt/add', { ...place, type: 'text', data: 'Draft' }));
    const token = expectSuccess(await ownCall('/v2/auth/token/get', { userId: 'ana' })).data.token as string;
    const socket = new HocuspocusProviderWebsocket({ url: `ws://127.0.0.1:${first.port}/v2/live`, WebSocketPolyfill: WebSocket });
    const provider = new HocuspocusProvider({ websocketProvider: socket, name: room(place.editorId, ownKey.apiKey), token });
    provider.attach();
    const serverDoc = () => first.app.get(LiveEditing).documents.get(room(place.editorId, ownKey.apiKey));
    await eventually(() => provider.isSynced, 'synced');
    provider.document.getText('content').insert(5, ' typed');
    await eventually(() => serverDoc()?.getText('content').toString() === 'Draft typed', 'the edit at the server');
    const closing = Date.now();
    await first.close();
    // Its clients are closed, not waited for (their providers would reconnect for ever).
    assert.ok(Date.now() - closing < 5000, `closing took ${Date.now() - closing} ms`);
    provider.destroy();
    socket.destroy();
    const second = await startApp(env);
    try {
      const [editor] = expectSuccess(await agentFor(second, ownKey)('/v2/crdt/get', place)).data as { data: string; lastUpdatedBy: string }[];
      assert.deepEqual([editor!.data, editor!.lastUpdatedBy], ['Draft typed', 'ana']);
    } finally {
      await second.close();
    }
  });

  it(
    'two instances on one PostgreSQL and Redis: their clients converge, REST writes and broadcasts reach both, one row results',
    { skip: process.env.DATABASE_URL ? false : 'needs PostgreSQL (the embedded database has one process)' },
    async () => {
      const shared = {
        MASTER_KEY: randomBytes(32).toString('base64'),
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
      };
      const [a, b] = [await startApp(shared), await startApp(shared)];
      try {
        const ownKey = await createKey(a);
        const [callA, callB] = [agentFor(a, ownKey), agentFor(b, ownKey)];
        expectSuccess(await callA('/v2/crdt/add', { ...place, type: 'text', data: 'Shared' }));
        const token = expectSuccess(await callA('/v2/auth/token/get', { userId: 'ana' })).data.token as string;
        const name = room(place.editorId, ownKey.apiKey);
        const onA = connectTo(a, name, token);
        const onB = connectTo(b, name, token);
        await Promise.all([onA.synced, onB.synced]);
        onA.text.insert(6, ' by A');
        await eventually(() => onB.text.toString() === 'Shared by A', "A's edit at B's client");
        onB.text.insert(0, 'B: ');
        await eventually(() => onA.text.toString() === 'B: Shared by A', "B's edit at A's client");
        // A REST update is a diff from what is stored: it waits for the rooms' edits to be stored.
        await eventually(async () => (await callB('/v2/crdt/get', place)).body.result?.data?.[0]?.data === 'B: Shared by A', 'stored', 8000);
        expectSuccess(await callB('/v2/crdt/update', { ...place, type: 'text', data: 'Rewritten through B' }));
        await eventually(() => onA.text.toString() === 'Rewritten through B' && onB.text.toString() === 'Rewritten through B', 'the REST write at both');
        expectSuccess(
          await callA('/v2/livestate/broadcast', { organizationId: place.organizationId, documentId: place.documentId, liveStateDataId: 'x', data: { n: 1 } }),
        );
        await eventually(() => liveStates(onA).length === 1 && liveStates(onB).length === 1, 'the broadcast at both, once');
        // Presence crosses instances: a server entry put through B reaches A's client, and B answers who is connected to A.
        const doc = { organizationId: place.organizationId, documentId: place.documentId };
        expectSuccess(await callB('/v2/presence/add', { ...doc, users: [{ userId: 'srv' }] }));
        const hasSrv = (client: Client) => lastPresence(client)?.some((user) => user.userId === 'srv') === true;
        await eventually(() => hasSrv(onA) && hasSrv(onB), 'the server entry at both clients');
        const bea = connectTo(a, name, expectSuccess(await callA('/v2/auth/token/get', { userId: 'bea' })).data.token as string);
        await bea.synced;
        const presentOnB = async () =>
          (expectSuccess(await callB('/v2/presence/get', doc)).data as PresentUser[]).map((u) => `${u.userId}:${u.live}`).join(',');
        await eventually(async () => (await presentOnB()) === 'ana:true,bea:true,srv:false', 'B answers who is connected to A');
        await eventually(() => lastPresence(onB)?.some((user) => user.userId === 'bea') === true, "A's new user told to B's client");
        bea.close();
        await eventually(async () => (await presentOnB()) === 'ana:true,srv:false', "bea's leaving seen through B");
        onA.text.insert(0, '# ');
        await eventually(async () => (await callB('/v2/crdt/get', place)).body.result?.data?.[0]?.data === '# Rewritten through B', 'stored', 8000);
        const [row] = await a.dataSource.query(`SELECT COUNT(*) AS n FROM crdt_editor WHERE api_key_id = '${ownKey.apiKey}'`);
        assert.equal(Number(row.n), 1);
        assert.deepEqual(liveStates(onA), [{ type: 'livestate', liveStateDataId: 'x', data: { n: 1 } }]);
        // A REST write through an instance where the room is not open reaches the other's clients.
        onA.close();
        await eventually(() => a.app.get(LiveEditing).documents.size === 0, "A's room closed");
        expectSuccess(await callA('/v2/crdt/update', { ...place, type: 'text', data: 'Written through A' }));
        await eventually(() => onB.text.toString() === 'Written through A', 'the REST write at B');
        onB.close();
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    },
  );

  it('kill -9 while typing loses at most what was typed in the last debounce window (2 s)', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-live-kill-'));
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      SQLITE_FILE: join(dataDir, 'svc.sqlite'),
      ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
      MASTER_KEY: randomBytes(32).toString('base64'),
      RATE_LIMIT_WORKSPACE_CREATE: '0',
      RATE_LIMIT_API_KEY: '0',
    };
    let service = startService(env);
    try {
      await waitForHealth(port);
      const headers = await apiKeyHeadersOn(port, `live.${randomBytes(4).toString('hex')}@example.com`);
      const apiKeyId = headers['x-svc-api-key']!;
      assert.equal((await postTo(port, '/v2/crdt/add', { ...place, type: 'text', data: '' }, headers)).status, 200);
      const token = (await postTo(port, '/v2/auth/token/get', { userId: 'ana' }, headers)).body.result.data.token as string;
      const socket = new HocuspocusProviderWebsocket({ url: `ws://127.0.0.1:${port}/v2/live`, WebSocketPolyfill: WebSocket });
      const provider = new HocuspocusProvider({ websocketProvider: socket, name: room(place.editorId, apiKeyId), token });
      provider.attach();
      const text = provider.document.getText('content');
      const stored = async () => (await postTo(port, '/v2/crdt/get', place, headers)).body.result?.data?.[0]?.data as string | undefined;
      try {
        await eventually(() => provider.isSynced, 'synced');
        // Typing for 4 s, a character every 50 ms: stored at least every 10 s, 2 s after a pause.
        for (let i = 0; i < 40; i++) {
          text.insert(text.length, 'a');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await eventually(async () => (await stored()) === 'a'.repeat(40), 'the pause stored it', 6000);
        text.insert(text.length, 'b'.repeat(10));
        await new Promise((resolve) => setTimeout(resolve, 200));
        service.child.kill('SIGKILL');
        await service.exited;
      } finally {
        provider.destroy();
        socket.destroy();
      }
      service = startService(env);
      await waitForHealth(port);
      // What was stored before the last window survives; the window's edit may be lost.
      assert.equal(await stored(), 'a'.repeat(40));
    } finally {
      service.child.kill('SIGKILL');
      await service.exited;
    }
  });
});
