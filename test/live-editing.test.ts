import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { LiveEditing } from '../src/live/live-editing.js';
import type { PresentUser } from '../src/live/dto/presence.dto.js';
import { roomName } from '../src/live/room-names.js';
import { startApp, type TestApp } from './helpers/app.js';
import { apiKeyHeadersOn, freePort, postTo, startService, waitForHealth } from './helpers/service-process.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { advancedEndpoint } from './helpers/webhooks.js';

/** Polls `check` until it holds (or fails the test after `timeoutMs`). */
async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The `livestate/broadcast` events a client received (presence messages aside). */
const liveStates = (client: Client) => client.stateless.filter((message) => (message as { type: string }).type === 'livestate');

/** The users of the last presence message a client received. */
const lastPresence = (client: Client) =>
  (client.stateless.filter((message) => (message as { type: string }).type === 'presence').at(-1) as { users: PresentUser[] } | undefined)?.users;

/** A Hocuspocus client (as Tiptap's collaboration extension runs one), with what happened to it. */
interface Client {
  provider: HocuspocusProvider;
  text: Y.Text;
  synced: Promise<void>;
  failed: Promise<string>;
  /** Stateless messages received (parsed JSON). */
  stateless: unknown[];
  /** Reasons the server gave for closing the room's connection. */
  closes: string[];
  close(): void;
}

describe('live editing over WebSocket (Hocuspocus protocol)', () => {
  let app: TestApp;
  let key: TestKey;
  let call: ReturnType<typeof agentFor>;
  const clients: Client[] = [];
  before(async () => {
    app = await startApp();
    key = await createKey(app);
    call = agentFor(app, key);
  });
  after(async () => {
    for (const client of clients) client.close();
    await app.close();
  });

  const place = { organizationId: 'org-live', documentId: 'doc', editorId: 'body' };
  const room = (editorId = place.editorId, apiKeyId = key.apiKey) => roomName({ apiKeyId, ...place, editorId });
  const tokenFor = async (userId: string, extra: Record<string, unknown> = {}, caller = call) =>
    expectSuccess(await caller('/v2/auth/token/get', { userId, ...extra })).data.token as string;

  const connect = (name: string, token: string): Client => connectTo(app, name, token);

  function connectTo(target: TestApp, name: string, token: string): Client {
    const socket = new HocuspocusProviderWebsocket({ url: `ws://127.0.0.1:${target.port}/v2/live`, WebSocketPolyfill: WebSocket });
    let failed!: (reason: string) => void;
    let synced!: () => void;
    const client: Client = {
      synced: new Promise((resolve) => (synced = resolve)),
      failed: new Promise((resolve) => (failed = resolve)),
      provider: new HocuspocusProvider({
        websocketProvider: socket,
        name,
        token,
        onSynced: () => synced(),
        onAuthenticationFailed: ({ reason }) => failed(reason),
        onStateless: ({ payload }) => client.stateless.push(JSON.parse(payload)),
        onClose: ({ event }) => client.closes.push(`${event.code} ${String(event.reason)}`.trim()),
      }),
      stateless: [],
      closes: [],
      text: undefined as unknown as Y.Text,
      close: () => {
        client.provider.destroy();
        socket.destroy();
      },
    };
    client.text = client.provider.document.getText('content');
    client.provider.attach();
    clients.push(client);
    return client;
  }

  const storedText = async (editorId = place.editorId) =>
    (expectSuccess(await call('/v2/crdt/get', { ...place, editorId })).data as { data: string }[])[0]?.data;

  before(async () => {
    expectSuccess(await call('/v2/users/add', { organizationId: place.organizationId, users: [{ userId: 'ana' }, { userId: 'bob' }] }));
    expectSuccess(await call('/v2/crdt/add', { ...place, type: 'text', data: 'Hello' }));
  });

  it('two clients converge both ways; crdt/get shows their text once stored; a REST update reaches both', async () => {
    const ana = connect(room(), await tokenFor('ana'));
    const bob = connect(room(), await tokenFor('bob'));
    await Promise.all([ana.synced, bob.synced]);
    assert.equal(ana.text.toString(), 'Hello', 'the stored content is loaded');
    ana.text.insert(5, ', world');
    await eventually(() => bob.text.toString() === 'Hello, world', "ana's edit at bob's");
    bob.text.insert(0, '> ');
    await eventually(() => ana.text.toString() === '> Hello, world', "bob's edit at ana's");
    // Stored within the debounce (2 s after typing stops), with the last writer.
    await eventually(async () => (await storedText()) === '> Hello, world', 'the text stored', 6000);
    const [stored] = expectSuccess(await call('/v2/crdt/get', place)).data as { lastUpdatedBy: string }[];
    assert.equal(stored!.lastUpdatedBy, 'bob');
    expectSuccess(await call('/v2/crdt/update', { ...place, type: 'text', data: '> Hello, REST world' }));
    await eventually(() => ana.text.toString() === '> Hello, REST world' && bob.text.toString() === '> Hello, REST world', 'the REST write at both');
    const metrics = (await app.get('/metrics')).text;
    assert.match(metrics, /^live_open\{kind="rooms"\} 1$/m);
    assert.match(metrics, /^live_open\{kind="connections"\} 2$/m);
    assert.match(metrics, /^live_messages_received_total [1-9]/m);
    assert.match(metrics, /^live_messages_sent_total [1-9]/m);
    assert.match(metrics, /^live_store_duration_seconds_count [1-9]/m);
    assert.deepEqual((await app.get('/health')).body.details.live, { status: 'up', rooms: 1, connections: 2 });
    ana.close();
    bob.close();
  });

  it("a y-websocket client (WebsocketProvider) and a Hocuspocus client share a room; y-websocket's refusals carry the reason", async () => {
    expectSuccess(await call('/v2/crdt/add', { ...place, editorId: 'mixed', type: 'text', data: 'Both' }));
    const hocuspocus = connect(room('mixed'), await tokenFor('ana'));
    const doc = new Y.Doc();
    const yws = new WebsocketProvider(`ws://127.0.0.1:${app.port}/v2/live/yws`, room('mixed'), doc, {
      params: { token: await tokenFor('bob') },
      WebSocketPolyfill: WebSocket as never,
      disableBc: true,
    });
    try {
      await hocuspocus.synced;
      await eventually(() => yws.synced && doc.getText('content').toString() === 'Both', 'the y-websocket client synced with the stored content');
      doc.getText('content').insert(4, ' ways');
      await eventually(() => hocuspocus.text.toString() === 'Both ways', 'the y-websocket edit at the Hocuspocus client');
      hocuspocus.text.insert(0, '> ');
      await eventually(() => doc.getText('content').toString() === '> Both ways', 'the Hocuspocus edit at the y-websocket client');
      await eventually(async () => (await storedText('mixed')) === '> Both ways', 'stored', 6000);
      // Awareness crosses protocols too.
      yws.awareness.setLocalStateField('user', { name: 'Bob' });
      await eventually(
        () => [...hocuspocus.provider.awareness!.getStates().values()].some((state) => (state as { user?: { name: string } }).user?.name === 'Bob'),
        "bob's presence at the Hocuspocus client",
      );
    } finally {
      yws.destroy();
      hocuspocus.close();
    }
    const refused = new WebsocketProvider(
      `ws://127.0.0.1:${app.port}/v2/live/yws`,
      roomName({ apiKeyId: key.apiKey, ...place, documentId: 'private' }),
      new Y.Doc(),
      {
        params: { token: await tokenFor('outsider') },
        WebSocketPolyfill: WebSocket as never,
        disableBc: true,
      },
    );
    try {
      const closed = await new Promise<{ code: number; reason: string }>((resolve) =>
        refused.on('connection-close', (event) => resolve({ code: event!.code, reason: String(event!.reason) })),
      );
      assert.deepEqual(closed, { code: 4403, reason: 'No access to this document.' });
    } finally {
      refused.destroy();
    }
  });

  it('a viewer reads but its edits are neither sent on nor stored', async () => {
    expectSuccess(await call('/v2/crdt/add', { ...place, editorId: 'viewed', type: 'text', data: 'Fixed' }));
    const viewerToken = expectSuccess(
      await call('/v2/auth/generate_token', {
        userId: 'vic',
        userProperties: { name: 'Vic', email: 'vic@example.com' },
        permissions: { resources: [{ type: 'document', id: 'doc', organizationId: 'org-live', accessRole: 'viewer' }] },
      }),
    ).data.token as string;
    const viewer = connect(room('viewed'), viewerToken);
    const editor = connect(room('viewed'), await tokenFor('ana'));
    await Promise.all([viewer.synced, editor.synced]);
    assert.equal(viewer.text.toString(), 'Fixed');
    viewer.text.insert(0, 'Not ');
    editor.text.insert(5, '!');
    await eventually(() => viewer.text.toString().includes('Fixed!'), "the editor's edit reaches the viewer");
    await new Promise((resolve) => setTimeout(resolve, 2600));
    assert.equal(editor.text.toString(), 'Fixed!', "the viewer's edit never reaches the editor");
    assert.equal(await storedText('viewed'), 'Fixed!');
  });

  it('refuses a user without access, a token of another key, a tampered token and an unknown room', async () => {
    expectSuccess(
      await call('/v2/organizations/documents/add', { organizationId: place.organizationId, documents: [{ documentId: 'private', accessType: 'restricted' }] }),
    );
    expectSuccess(await call('/v2/crdt/add', { ...place, documentId: 'private', type: 'text', data: 'secret' }));
    const other = await createKey(app);
    const otherCall = agentFor(app, other);
    const genuine = await tokenFor('ana');
    const refusals = [
      ['no access', roomName({ apiKeyId: key.apiKey, ...place, documentId: 'private' }), await tokenFor('outsider')],
      ["another key's token", room(), await tokenFor('ana', {}, otherCall)],
      ['a tampered token', room(), `${genuine.slice(0, -2)}${genuine.endsWith('AA') ? 'AB' : 'AA'}`],
      ['an unknown room', `${key.apiKey}/org-live/doc`, genuine],
      ['a missing editor', room('missing'), genuine],
    ] as const;
    const reasons: string[] = [];
    for (const [what, name, token] of refusals) {
      const client = connect(name, token);
      const outcome = await Promise.race([client.failed.then((reason) => `refused: ${reason}`), client.synced.then(() => 'synced')]);
      assert.match(outcome, /^refused/, what);
      reasons.push(outcome);
      client.close();
    }
    assert.deepEqual(reasons, [
      'refused: No access to this document.',
      'refused: Invalid or expired token.',
      'refused: Invalid or expired token.',
      'refused: Unknown room: a room is <apiKey>/<organizationId>/<documentId>/<editorId>, each percent-encoded.',
      'refused: No CRDT data found for this editor ID.',
    ]);
  });

  it('a grant removed while connected takes the room from its user within 5 s', async () => {
    const secret = { ...place, documentId: 'secret' };
    expectSuccess(
      await call('/v2/organizations/documents/add', { organizationId: place.organizationId, documents: [{ documentId: 'secret', accessType: 'restricted' }] }),
    );
    expectSuccess(await call('/v2/crdt/add', { ...secret, type: 'text', data: 'shh' }));
    const resources = [{ type: 'document', id: 'secret', organizationId: place.organizationId, accessRole: 'editor' }];
    for (const userId of ['carl', 'dora']) expectSuccess(await call('/v2/auth/permissions/add', { user: { userId }, permissions: { resources } }));
    const name = roomName({ apiKeyId: key.apiKey, ...secret });
    const carl = connect(name, await tokenFor('carl'));
    const dora = connect(name, await tokenFor('dora'));
    await Promise.all([carl.synced, dora.synced]);
    dora.text.insert(3, '!');
    await eventually(() => carl.text.toString() === 'shh!', "dora's edit at carl's");
    const usersInRoom = () =>
      (app.app.get(LiveEditing).hocuspocus.documents.get(name)?.getConnections() ?? []).map((c) => (c.context as { userId: string }).userId).sort();
    assert.deepEqual(usersInRoom(), ['carl', 'dora']);
    const removed = Date.now();
    expectSuccess(
      await call('/v2/auth/permissions/remove', {
        userId: 'carl',
        permissions: { resources: [{ type: 'document', id: 'secret', organizationId: place.organizationId }] },
      }),
    );
    await eventually(() => usersInRoom().join() === 'dora', 'carl out of the room', 5000);
    assert.ok(Date.now() - removed < 5000);
    dora.text.insert(0, '> ');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(carl.text.toString(), 'shh!', 'nothing reaches carl any more');
    for (const client of [carl, dora]) client.close();
  });

  it('an update that would take the editor past CRDT_MAX_BYTES is refused with the reason, and neither the room nor the stored editor changes', async () => {
    const small = await startApp({ CRDT_MAX_BYTES: '1kb' });
    try {
      const smallKey = await createKey(small);
      const smallCall = agentFor(small, smallKey);
      expectSuccess(await smallCall('/v2/crdt/add', { ...place, type: 'text', data: 'Small' }));
      const token = expectSuccess(await smallCall('/v2/auth/token/get', { userId: 'ana' })).data.token as string;
      const name = room(place.editorId, smallKey.apiKey);
      const [writer, reader] = [connectTo(small, name, token), connectTo(small, name, token)];
      await Promise.all([writer.synced, reader.synced]);
      writer.text.insert(5, ' and fine'.repeat(50));
      await eventually(() => reader.text.length === 5 + 450, 'an edit under the limit arrives');
      writer.text.insert(0, 'x'.repeat(2000));
      await eventually(() => writer.closes.some((c) => c.endsWith('CRDT data must be at most 1024 bytes as JSON per editor.')), 'the writer told why');
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(reader.text.length, 455, 'the refused edit never spread');
      const [stored] = expectSuccess(await smallCall('/v2/crdt/get', place)).data as { data: string }[];
      assert.equal(stored!.data.length, 455);
      writer.close();
      reader.close();
    } finally {
      await small.close();
    }
  });

  it('limits: connections per key, messages per second, the largest message', async () => {
    const limited = await startApp({ LIVE_MAX_CONNECTIONS_PER_KEY: '2', LIVE_MAX_MESSAGES_PER_SECOND: '5', LIVE_MAX_MESSAGE_BYTES: '2kb' });
    try {
      const ownKey = await createKey(limited);
      const ownCall = agentFor(limited, ownKey);
      expectSuccess(await ownCall('/v2/crdt/add', { ...place, type: 'text', data: '' }));
      const token = expectSuccess(await ownCall('/v2/auth/token/get', { userId: 'ana' })).data.token as string;
      const name = room(place.editorId, ownKey.apiKey);
      const [first, second] = [connectTo(limited, name, token), connectTo(limited, name, token)];
      await Promise.all([first.synced, second.synced]);
      const third = connectTo(limited, name, token);
      assert.equal(await third.failed, 'Too many live connections for this API key: at most 2 on one instance.');
      third.close();
      second.close();
      const again = connectTo(limited, name, token);
      await eventually(() => again.provider.isSynced, 'a place freed by a client that left is taken');
      // Each edit is one message: 30 in a moment pass five a second.
      for (let i = 0; i < 30; i++) again.text.insert(0, 'x');
      await eventually(() => again.closes.some((c) => c.endsWith('Too many messages: at most 5 a second.')), 'closed for its rate');
      again.close();
      first.text.insert(0, 'y'.repeat(10_000));
      await eventually(() => first.closes.some((c) => c.startsWith('1009')), 'a message past 2 KiB closes the socket (1009)');
      first.close();
    } finally {
      await limited.close();
    }
  });

  it('livestate/broadcast (and its v1 path) reaches every client of the document, merged when asked', async () => {
    expectSuccess(await call('/v2/crdt/add', { ...place, editorId: 'second', type: 'text', data: '' }));
    const one = connect(room(), await tokenFor('ana'));
    const two = connect(room('second'), await tokenFor('bob'));
    expectSuccess(await call('/v2/crdt/add', { ...place, documentId: 'other-doc', type: 'text', data: '' }));
    const elsewhere = connect(roomName({ apiKeyId: key.apiKey, ...place, documentId: 'other-doc' }), await tokenFor('ana'));
    await Promise.all([one.synced, two.synced, elsewhere.synced]);
    const sent = { organizationId: place.organizationId, documentId: place.documentId, liveStateDataId: 'cursor-mode' };
    assert.deepEqual(
      expectSuccess(await call('/v2/livestate/broadcast', { ...sent, data: { mode: 'draw', color: 'red' } }), 'Event broadcasted successfully.').data,
      { success: true },
    );
    expectSuccess(await call('/v1/livestate/broadcast', { ...sent, data: { color: 'blue' }, merge: true }));
    const expected = [
      { type: 'livestate', liveStateDataId: 'cursor-mode', data: { mode: 'draw', color: 'red' } },
      { type: 'livestate', liveStateDataId: 'cursor-mode', data: { mode: 'draw', color: 'blue' } },
    ];
    await eventually(() => liveStates(one).length === 2 && liveStates(two).length === 2, 'both broadcasts at both clients');
    assert.deepEqual(liveStates(one), expected);
    assert.deepEqual(liveStates(two), expected);
    assert.deepEqual(liveStates(elsewhere), [], 'another document hears nothing');
    expectError(await call('/v2/livestate/broadcast', { ...sent, data: 'text' }), 400, 'INVALID_ARGUMENT', 'data.data must be an object');
    for (const client of [one, two, elsewhere]) client.close();
  });

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
      await eventually(() => own.app.get(LiveEditing).hocuspocus.documents.size === 0, 'the room unloaded');
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
    const serverDoc = () => first.app.get(LiveEditing).hocuspocus.documents.get(room(place.editorId, ownKey.apiKey));
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
        await eventually(() => a.app.get(LiveEditing).hocuspocus.documents.size === 0, "A's room closed");
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
