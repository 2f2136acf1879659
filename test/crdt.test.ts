import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as Y from 'yjs';
import { CrdtStore } from '../src/crdt/crdt-store.js';
import { agentFor, createKey, expectError, expectSuccess, withKeyedApp } from './factories/workspace.js';

const org = 'crdt-org';
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const bytes = (base64: string) => new Uint8Array(Buffer.from(base64, 'base64'));

describe('shared-editing content on Yjs (contract part 7)', () => {
  const keyed = withKeyedApp({ CRDT_MAX_BYTES: '64kb', BODY_LIMIT: '256kb' });
  const call = (path: string, data: unknown) => keyed.call(path, data);
  const editor = (documentId: string, editorId: string) => ({ organizationId: org, documentId, editorId });
  const add = async (documentId: string, editorId: string, type: string, data: unknown, extra: Record<string, unknown> = {}) => {
    const result = expectSuccess(await call('/v2/crdt/add', { ...editor(documentId, editorId), type, data, ...extra }), 'CRDT data added successfully.');
    assert.deepEqual(Object.keys(result).sort(), ['message', 'status'], 'add answers without data');
  };
  const update = async (documentId: string, editorId: string, type: string, data: unknown, extra: Record<string, unknown> = {}) =>
    expectSuccess(await call('/v2/crdt/update', { ...editor(documentId, editorId), type, data, ...extra }), 'CRDT data updated successfully.');
  const get = async (documentId: string, editorId?: string) =>
    expectSuccess(await call('/v2/crdt/get', { organizationId: org, documentId, ...(editorId ? { editorId } : {}) }), 'CRDT data retrieved successfully.')
      .data as Record<string, any>[];
  const stateOf = async (documentId: string, editorId: string, stateVector?: Uint8Array) =>
    expectSuccess(
      await call('/v2/crdt/state/get', { ...editor(documentId, editorId), ...(stateVector ? { stateVector: b64(stateVector) } : {}) }),
      'CRDT state retrieved successfully.',
    ).data as {
      update: string;
      stateVector: string;
    };
  const sendState = async (documentId: string, editorId: string, update: Uint8Array, userId?: string) =>
    expectSuccess(
      await call('/v2/crdt/state/update', { ...editor(documentId, editorId), update: b64(update), ...(userId ? { userId } : {}) }),
      'CRDT state updated successfully.',
    );
  /** A Yjs client holding the editor's current state. */
  const client = async (documentId: string, editorId: string) => {
    const doc = new Y.Doc();
    Y.applyUpdate(doc, bytes((await stateOf(documentId, editorId)).update));
    return doc;
  };

  it('round-trips each type, and state/get applied to an empty Y.Doc equals get', async () => {
    const cases = [
      { type: 'text', data: 'Hello, world', read: (doc: Y.Doc) => doc.getText('content').toString() },
      { type: 'map', data: { title: 'Plan', tags: ['a', 'b'], nested: { done: false, n: 3 } }, read: (doc: Y.Doc) => doc.getMap('content').toJSON() },
      { type: 'array', data: [1, 'two', { three: 3 }, [4]], read: (doc: Y.Doc) => doc.getArray('content').toJSON() },
      { type: 'xml', data: '<p class="x">Hello <b>there</b></p>plain', read: (doc: Y.Doc) => doc.getXmlFragment('content').toString() },
    ];
    for (const { type, data, read } of cases) {
      const before = Date.now();
      await add('doc-types', `editor-${type}`, type, data, { userId: 'alice' });
      const [record] = await get('doc-types', `editor-${type}`);
      assert.deepEqual(record, { id: `editor-${type}`, data, lastUpdate: record!.lastUpdate, lastUpdatedBy: 'alice', sessionId: null });
      assert.ok(Date.parse(record!.lastUpdate) >= before - 1000 && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(record!.lastUpdate));
      assert.deepEqual(read(await client('doc-types', `editor-${type}`)), data, `${type}: a Yjs client sees the same content`);
    }
    assert.deepEqual(
      (await get('doc-types')).map((r) => r.id),
      ['editor-text', 'editor-map', 'editor-array', 'editor-xml'],
    );
    assert.deepEqual(await get('doc-without-editors'), []);
  });

  it("answers the last write's sessionId, null when that write sent none", async () => {
    const session = async () => (await get('doc-session', 'notes'))[0]!.sessionId;
    await add('doc-session', 'notes', 'text', 'one', { userId: 'ana', sessionId: 'session-abc-456' });
    assert.equal(await session(), 'session-abc-456');
    await update('doc-session', 'notes', 'text', 'two', { userId: 'ben', sessionId: 'session-ben-1' });
    assert.equal(await session(), 'session-ben-1');
    const doc = await client('doc-session', 'notes');
    const before = Y.encodeStateVector(doc);
    doc.getText('content').insert(0, '>');
    expectSuccess(
      await call('/v2/crdt/state/update', { ...editor('doc-session', 'notes'), update: b64(Y.encodeStateAsUpdate(doc, before)), sessionId: 'session-yjs' }),
    );
    assert.equal(await session(), 'session-yjs');
    await update('doc-session', 'notes', 'text', 'three');
    assert.equal(await session(), null);
    expectError(
      await call('/v2/crdt/update', { ...editor('doc-session', 'notes'), type: 'text', data: 'x', sessionId: 7 }),
      400,
      'INVALID_ARGUMENT',
      /^data\.sessionId must be a string/,
    );
    expectError(
      await call('/v2/crdt/update', { ...editor('doc-session', 'notes'), type: 'text', data: 'x', sessionId: 's'.repeat(257) }),
      400,
      'INVALID_ARGUMENT',
      /^data\.sessionId must be at most 256/,
    );
  });

  it('keeps the content under contentKey, and XML in the string form Yjs gives it', async () => {
    await add('doc-key', 'rich', 'xml', '<p b=\'2\' a="1">x<br/></p>', { contentKey: 'default' });
    assert.equal((await get('doc-key', 'rich'))[0]!.data, '<p a="1" b="2">x<br></br></p>');
    const doc = await client('doc-key', 'rich');
    assert.equal(doc.getXmlFragment('default').toString(), '<p a="1" b="2">x<br></br></p>');
    assert.equal(doc.getXmlFragment('content').length, 0);
    expectError(
      await call('/v2/crdt/update', { ...editor('doc-key', 'rich'), type: 'xml', data: '<p/>' }),
      400,
      'INVALID_ARGUMENT',
      'data.contentKey must be "default", as when this editor was added.',
    );
  });

  it('refuses data that does not match the type, a second add, and an update of an unknown editor', async () => {
    const refused = async (type: string, data: unknown, message: string | RegExp) =>
      expectError(await call('/v2/crdt/add', { ...editor('doc-bad', `e-${type}`), type, data }), 400, 'INVALID_ARGUMENT', message);
    await refused('text', 12, 'Data must be a string for type text.');
    await refused('map', ['x'], 'Data must be an object for type map.');
    await refused('map', null, 'Data must be an object for type map.');
    await refused('array', { a: 1 }, 'Data must be an array for type array.');
    await refused('xml', { a: 1 }, 'Data must be a string for type xml.');
    await refused('xml', '<p>open', /^Data is not well-formed XML: <p> is not closed/);
    await refused('rope', 'x', 'data.type must be one of: text, map, array, xml');
    expectError(
      await call('/v2/crdt/add', { organizationId: org, documentId: 'doc-bad', type: 'text', data: 'x' }),
      400,
      'INVALID_ARGUMENT',
      'data.editorId must be a non-empty string',
    );
    expectError(await call('/v2/crdt/add', { ...editor('doc-bad', 'e'), type: 'text' }), 400, 'INVALID_ARGUMENT', 'data.data is required');
    expectError(await call('/v2/crdt/get', { documentId: 'doc-bad' }), 400, 'INVALID_ARGUMENT', 'data.organizationId must be a non-empty string');

    await add('doc-bad', 'once', 'text', 'first');
    expectError(
      await call('/v2/crdt/add', { ...editor('doc-bad', 'once'), type: 'text', data: 'second' }),
      409,
      'ALREADY_EXISTS',
      'CRDT data already exists for this editor ID.',
    );
    assert.equal((await get('doc-bad', 'once'))[0]!.data, 'first');
    expectError(
      await call('/v2/crdt/update', { ...editor('doc-bad', 'never'), type: 'text', data: 'x' }),
      404,
      'NOT_FOUND',
      'No CRDT data found for this editor ID.',
    );
    expectError(
      await call('/v2/crdt/state/update', { ...editor('doc-bad', 'never'), update: b64(Y.encodeStateAsUpdate(new Y.Doc())) }),
      404,
      'NOT_FOUND',
      'No CRDT data found for this editor ID.',
    );
    expectError(await call('/v2/crdt/state/get', editor('doc-bad', 'never')), 404, 'NOT_FOUND', 'No CRDT data found for this editor ID.');
    expectError(
      await call('/v2/crdt/update', { ...editor('doc-bad', 'once'), type: 'map', data: {} }),
      400,
      'INVALID_ARGUMENT',
      'data.type must be "text", as when this editor was added.',
    );
  });

  it('creates the organization and document it names', async () => {
    await add('crdt-created-doc', 'e', 'text', 'x');
    const documents = expectSuccess(await call('/v2/organizations/documents/get', { organizationId: org, documentIds: ['crdt-created-doc'] })).data;
    assert.equal(documents.length, 1);
  });

  it('a Yjs client editing offline converges with a REST update of the same text, both edits kept', async () => {
    await add('doc-merge', 'notes', 'text', 'The quick brown fox jumps over the lazy dog.', { userId: 'alice' });
    const offline = await client('doc-merge', 'notes');
    const seenByClient = Y.encodeStateVector(offline);
    offline.getText('content').insert(0, 'Today: ');

    // Meanwhile a REST caller changes the end of the same text.
    await update('doc-merge', 'notes', 'text', 'The quick brown fox jumps over the sleepy cat.', { userId: 'bob' });
    assert.equal((await get('doc-merge', 'notes'))[0]!.lastUpdatedBy, 'bob');

    // The client comes back: sends what the server lacks, receives what it lacks.
    await sendState('doc-merge', 'notes', Y.encodeStateAsUpdate(offline, bytes((await stateOf('doc-merge', 'notes')).stateVector)), 'carol');
    Y.applyUpdate(offline, bytes((await stateOf('doc-merge', 'notes', seenByClient)).update));
    const [record] = await get('doc-merge', 'notes');
    assert.equal(record!.data, 'Today: The quick brown fox jumps over the sleepy cat.');
    assert.equal(record!.lastUpdatedBy, 'carol');
    assert.equal(offline.getText('content').toString(), record!.data);
  });

  it('map updates change only the keys that differ, so a client’s concurrent key survives', async () => {
    await add('doc-map', 'form', 'map', { title: 'Draft', count: 1 });
    const offline = await client('doc-map', 'form');
    offline.getMap('content').set('owner', 'dana');
    await update('doc-map', 'form', 'map', { title: 'Final', count: 1 });
    await sendState('doc-map', 'form', Y.encodeStateAsUpdate(offline));
    assert.deepEqual((await get('doc-map', 'form'))[0]!.data, { title: 'Final', count: 1, owner: 'dana' });
    await update('doc-map', 'form', 'map', { count: 2 });
    assert.deepEqual((await get('doc-map', 'form'))[0]!.data, { count: 2 });
  });

  it('array and xml updates replace only the changed middle', async () => {
    await add('doc-seq', 'list', 'array', ['a', 'b', 'c', 'd']);
    const offline = await client('doc-seq', 'list');
    offline.getArray('content').insert(0, ['first']);
    await update('doc-seq', 'list', 'array', ['a', 'B', 'c', 'd', 'e']);
    await sendState('doc-seq', 'list', Y.encodeStateAsUpdate(offline));
    assert.deepEqual((await get('doc-seq', 'list'))[0]!.data, ['first', 'a', 'B', 'c', 'd', 'e']);

    await add('doc-seq', 'page', 'xml', '<h1>Title</h1><p>One</p><p>Two</p>');
    await update('doc-seq', 'page', 'xml', '<h1>Title</h1><p>One!</p><p>Two</p><p>Three</p>');
    assert.equal((await get('doc-seq', 'page'))[0]!.data, '<h1>Title</h1><p>One!</p><p>Two</p><p>Three</p>');
    assert.equal((await client('doc-seq', 'page')).getXmlFragment('content').toString(), '<h1>Title</h1><p>One!</p><p>Two</p><p>Three</p>');
  });

  it('20 Yjs clients sending updates at once are all applied', async () => {
    await add('doc-parallel', 'shared', 'map', {});
    const updates = Array.from({ length: 20 }, (_, i) => {
      const doc = new Y.Doc();
      doc.getMap('content').set(`client${i}`, i);
      return Y.encodeStateAsUpdate(doc);
    });
    await Promise.all(updates.map((u) => sendState('doc-parallel', 'shared', u)));
    const data = (await get('doc-parallel', 'shared'))[0]!.data;
    assert.deepEqual(data, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`client${i}`, i])));
  });

  it('20 REST updates at once are each applied in turn, none over a stale state', async () => {
    await add('doc-parallel', 'story', 'text', 'start');
    const store = keyed.app.app.get(CrdtStore);
    const written: string[] = [];
    store.observers.add({
      crdtWritten: async (_manager, _apiKeyId, stored) => void (stored.editorId === 'story' && written.push(JSON.parse(stored.dataJson) as string)),
    });
    const texts = Array.from({ length: 20 }, (_, i) => `start, then writer ${i}`);
    await Promise.all(texts.map((text) => update('doc-parallel', 'story', 'text', text)));
    assert.equal(written.length, 20);
    assert.deepEqual([...written].sort(), [...texts].sort(), 'every update was applied once');
    const [record] = await get('doc-parallel', 'story');
    assert.equal(record!.data, written[written.length - 1], 'the last applied update is the content');
    assert.equal((await client('doc-parallel', 'story')).getText('content').toString(), record!.data, 'the stored state agrees with the view');
  });

  it('bad base64, a bad update or a bad state vector answer INVALID_ARGUMENT and change nothing', async () => {
    await add('doc-safe', 'e', 'text', 'intact');
    const stateBefore = (await stateOf('doc-safe', 'e')).update;
    expectError(
      await call('/v2/crdt/state/update', { ...editor('doc-safe', 'e'), update: 'not base64!' }),
      400,
      'INVALID_ARGUMENT',
      'data.update must be base64 (standard alphabet, padded)',
    );
    expectError(
      await call('/v2/crdt/state/update', { ...editor('doc-safe', 'e'), update: b64(new Uint8Array([0xff, 0xff, 0xff, 0x01, 0x02])) }),
      400,
      'INVALID_ARGUMENT',
      /^data\.update is not a valid Yjs update/,
    );
    expectError(
      await call('/v2/crdt/state/get', { ...editor('doc-safe', 'e'), stateVector: 'AAAA$' }),
      400,
      'INVALID_ARGUMENT',
      'data.stateVector must be base64 (standard alphabet, padded)',
    );
    assert.equal((await get('doc-safe', 'e'))[0]!.data, 'intact');
    assert.equal((await stateOf('doc-safe', 'e')).update, stateBefore);
  });

  it('refuses content over the per-editor limit (CRDT_MAX_BYTES), by add, update or Yjs update', async () => {
    const big = 'x'.repeat(70 * 1024);
    expectError(
      await call('/v2/crdt/add', { ...editor('doc-limit', 'e'), type: 'text', data: big }),
      400,
      'INVALID_ARGUMENT',
      'CRDT data must be at most 65536 bytes as JSON per editor.',
    );
    await add('doc-limit', 'e', 'text', 'small');
    expectError(
      await call('/v2/crdt/update', { ...editor('doc-limit', 'e'), type: 'text', data: big }),
      400,
      'INVALID_ARGUMENT',
      'CRDT data must be at most 65536 bytes as JSON per editor.',
    );
    const grown = await client('doc-limit', 'e');
    grown.getText('content').insert(5, big);
    expectError(
      await call('/v2/crdt/state/update', { ...editor('doc-limit', 'e'), update: b64(Y.encodeStateAsUpdate(grown)) }),
      400,
      'INVALID_ARGUMENT',
      'CRDT data must be at most 65536 bytes as JSON per editor.',
    );
    assert.equal((await get('doc-limit', 'e'))[0]!.data, 'small');
  });

  // The bench's target at a tenth of its size: 1,000 edits to 100 KB there, 100 to 10 KB here.
  it('stores little more than the final text after many single-character edits', async () => {
    const base = Array.from({ length: 2000 }, (_, i) => `w${i}`)
      .join(' ')
      .slice(0, 10_000);
    await add('doc-size', 'edited', 'text', base);
    let text = base;
    for (let i = 0; i < 100; i++) {
      const at = (i * 7919) % text.length;
      text = i % 3 === 2 ? text.slice(0, at) + text.slice(at + 1) : `${text.slice(0, at)}${String.fromCharCode(97 + (i % 26))}${text.slice(at)}`;
      await update('doc-size', 'edited', 'text', text);
    }
    await add('doc-size', 'fresh', 'text', text);
    assert.equal((await get('doc-size', 'edited'))[0]!.data, text);
    const edited = bytes((await stateOf('doc-size', 'edited')).update).length;
    const fresh = bytes((await stateOf('doc-size', 'fresh')).update).length;
    assert.ok(edited <= fresh * 1.5, `${edited} bytes after edits vs ${fresh} written at once`);
  });

  it('deletes named editors or all of a document, and goes with its document', async () => {
    for (const id of ['a', 'b', 'c']) await add('doc-del', id, 'text', id);
    expectSuccess(
      await call('/v2/crdt/delete', { organizationId: org, documentId: 'doc-del', editorIds: ['a', 'missing'] }),
      'CRDT data deleted successfully.',
    );
    assert.deepEqual(
      (await get('doc-del')).map((r) => r.id),
      ['b', 'c'],
    );
    expectSuccess(await call('/v2/crdt/delete', { organizationId: org, documentId: 'doc-del' }));
    assert.deepEqual(await get('doc-del'), []);
    await add('doc-del', 'd', 'text', 'd');
    expectSuccess(await call('/v2/organizations/documents/delete', { organizationId: org, documentIds: ['doc-del'] }));
    assert.deepEqual(await get('doc-del'), []);
  });

  it('another key reads and writes nothing of this key', async () => {
    await add('doc-private', 'secret', 'text', 'mine');
    const other = agentFor(keyed.app, await createKey(keyed.app));
    assert.deepEqual(expectSuccess(await other('/v2/crdt/get', { organizationId: org, documentId: 'doc-private' })).data, []);
    expectError(await other('/v2/crdt/update', { ...editor('doc-private', 'secret'), type: 'text', data: 'theirs' }), 404, 'NOT_FOUND');
    expectError(await other('/v2/crdt/state/get', editor('doc-private', 'secret')), 404, 'NOT_FOUND');
    expectSuccess(await other('/v2/crdt/delete', { organizationId: org, documentId: 'doc-private' }));
    expectSuccess(await other('/v2/crdt/add', { ...editor('doc-private', 'secret'), type: 'text', data: 'theirs' }));
    assert.equal((await get('doc-private', 'secret'))[0]!.data, 'mine');
  });
});
