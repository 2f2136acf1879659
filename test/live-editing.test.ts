import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { LiveEditing } from '../src/live/live-editing.js';
import { roomName } from '../src/live/room-names.js';
import { startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';
import { connectLive, eventually, liveStates, type LiveClient as Client } from './helpers/live-clients.js';

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
    const client = connectLive(target.port, name, token);
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
      (app.app.get(LiveEditing).documents.get(name)?.getConnections() ?? []).map((c) => (c.context as { userId: string }).userId).sort();
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
});
