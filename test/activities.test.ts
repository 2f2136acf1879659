import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ActivityStore } from '../src/activity/activity-store.js';
import { agentFor, createKey, expectError, expectSuccess, withKeyedApp } from './factories/workspace.js';
import { planOf, statementOf } from './helpers/query-plan.js';

const user = (userId: string) => ({ userId, name: `User ${userId}`, email: `${userId}@example.com` });

describe('activities: add, get, update, delete (contract 6.1)', () => {
  const keyed = withKeyedApp();
  const call = (path: string, data: unknown) => keyed.call(path, data);
  const add = async (organizationId: string, documentId: string, activities: unknown[]) =>
    expectSuccess(await call('/v2/activities/add', { organizationId, documentId, activities }), 'Activity(s) added successfully.').data;
  const get = async (data: Record<string, unknown>) => expectSuccess(await call('/v2/activities/get', data), 'Activity(s) retrieved successfully.');

  it('adds a record and reads it back with metadata filled by the service', async () => {
    const before = Date.now();
    const added = await add('act-org', 'doc-1', [
      {
        featureType: 'comment',
        actionType: 'comment.add',
        actionUser: user('alice'),
        targetEntityId: 'annotation-1',
        targetSubEntityId: 'comment-1',
        changes: { status: { from: 'open', to: 'resolved' } },
        entityData: { text: 'Looks good', nested: [1, { a: null }] },
        entityTargetData: 'a string snapshot',
        displayMessageTemplate: '{{user}} commented',
        displayMessageTemplateData: { user: user('alice') },
        actionIcon: 'https://example.com/icon.png',
      },
    ]);
    const [id] = Object.keys(added);
    assert.match(id!, /^act_[0-9A-Z]{26}$/);
    assert.deepEqual(added[id!], { success: true, id, message: 'Activity added.' });

    const result = await get({ organizationId: 'act-org' });
    assert.equal(result.pageToken, undefined);
    assert.equal(result.data.length, 1);
    const record = result.data[0];
    assert.ok(record.timestamp >= before && record.timestamp <= Date.now());
    assert.deepEqual(record, {
      id,
      featureType: 'comment',
      actionType: 'comment.add',
      targetEntityId: 'annotation-1',
      actionUser: user('alice'),
      targetSubEntityId: 'comment-1',
      changes: { status: { from: 'open', to: 'resolved' } },
      entityData: { text: 'Looks good', nested: [1, { a: null }] },
      entityTargetData: 'a string snapshot',
      displayMessageTemplate: '{{user}} commented',
      displayMessageTemplateData: { user: user('alice') },
      actionIcon: 'https://example.com/icon.png',
      metadata: { apiKey: keyed.key.apiKey, documentId: 'doc-1', organizationId: 'act-org' },
      timestamp: record.timestamp,
    });
  });

  it("keeps upstream's isActivityResolverUsed and the caller's metadata keys; the service's three keys win", async () => {
    const added = await add('act-meta-org', 'doc-meta', [
      {
        featureType: 'custom',
        actionType: 'deployment.triggered',
        actionUser: { userId: 'ci' },
        targetEntityId: 'pr-123',
        isActivityResolverUsed: true,
        metadata: { pipeline: 'release', apiKey: 'forged', organizationId: 'elsewhere', nested: { run: 7 } },
      },
      { featureType: 'custom', actionType: 'deployment.finished', actionUser: { userId: 'ci' }, targetEntityId: 'pr-123' },
    ]);
    const result = await get({ organizationId: 'act-meta-org', order: 'asc' });
    const [withMetadata, without] = result.data as Record<string, unknown>[];
    assert.equal(withMetadata!.isActivityResolverUsed, true);
    assert.deepEqual(withMetadata!.metadata, {
      pipeline: 'release',
      nested: { run: 7 },
      apiKey: keyed.key.apiKey,
      documentId: 'doc-meta',
      organizationId: 'act-meta-org',
    });
    assert.equal(without!.isActivityResolverUsed, undefined);
    assert.deepEqual(without!.metadata, { apiKey: keyed.key.apiKey, documentId: 'doc-meta', organizationId: 'act-meta-org' });
    assert.equal(Object.keys(added).length, 2);
    expectError(
      await call('/v2/activities/add', {
        organizationId: 'o',
        documentId: 'd',
        activities: [{ featureType: 'custom', actionType: 'x', actionUser: { userId: 'u' }, targetEntityId: 't', metadata: 'no' }],
      }),
      400,
      'INVALID_ARGUMENT',
      /activities\[0\]\.metadata/,
    );
    expectError(
      await call('/v2/activities/add', {
        organizationId: 'o',
        documentId: 'd',
        activities: [{ featureType: 'custom', actionType: 'x', actionUser: { userId: 'u' }, targetEntityId: 't', isActivityResolverUsed: 'yes' }],
      }),
      400,
      'INVALID_ARGUMENT',
      /isActivityResolverUsed/,
    );
  });

  it('creates the organization and the document it names', async () => {
    await add('act-created-org', 'act-created-doc', [{ featureType: 'reaction', actionType: 'reaction.add', actionUser: user('bob') }]);
    const documents = expectSuccess(await call('/v2/organizations/documents/get', { organizationId: 'act-created-org' })).data;
    assert.deepEqual(
      documents.map((d: { id: string }) => d.id),
      ['act-created-doc'],
    );
  });

  it('a re-added id overwrites the record, and a backfilled timestamp is kept', async () => {
    await add('act-idem', 'doc', [{ id: 'fixed', featureType: 'comment', actionType: 'comment.add', actionUser: user('a'), timestamp: 1_000 }]);
    const again = await add('act-idem', 'doc-2', [
      { id: 'fixed', featureType: 'reaction', actionType: 'reaction.add', actionUser: user('b'), timestamp: 2_000 },
    ]);
    assert.deepEqual(again, { fixed: { success: true, id: 'fixed', message: 'Activity added.' } });
    const records = (await get({ organizationId: 'act-idem' })).data;
    assert.equal(records.length, 1);
    assert.equal(records[0].featureType, 'reaction');
    assert.equal(records[0].timestamp, 2_000);
    assert.equal(records[0].metadata.documentId, 'doc-2');
    assert.deepEqual(records[0].actionUser, user('b'));
  });

  it('refuses bad activities with the field named', async () => {
    const base = { featureType: 'comment', actionType: 'comment.add', actionUser: user('a') };
    const refused = async (activities: unknown, message: string | RegExp, extra: Record<string, unknown> = {}) =>
      expectError(await call('/v2/activities/add', { organizationId: 'act-bad', documentId: 'd', activities, ...extra }), 400, 'INVALID_ARGUMENT', message);
    await refused([{ ...base, featureType: 'video' }], 'data.activities[0].featureType must be one of: comment, reaction, recorder, crdt, custom');
    await refused([base, { ...base, featureType: 'custom', actionType: 'my.action' }], 'data.activities[1].targetEntityId is required for featureType custom');
    await refused([{ ...base, extra: 1 }], 'Unknown field: data.activities[0].extra');
    await refused([{ ...base, actionUser: { name: 'x' } }], 'data.activities[0].actionUser.userId is required');
    await refused([{ ...base, actionUser: { userId: '' } }], 'data.activities[0].actionUser.userId must be a non-empty string');
    await refused([{ featureType: 'comment', actionUser: user('a') }], 'data.activities[0].actionType is required');
    await refused([{ ...base, timestamp: -5 }], /^data\.activities\[0\]\.timestamp must be an integer/);
    await refused([{ ...base, timestamp: '2024' }], /^data\.activities\[0\]\.timestamp must be an integer/);
    await refused([{ ...base, changes: [] }], 'data.activities[0].changes must be an object');
    await refused(
      [
        { ...base, id: 'x' },
        { ...base, id: 'x' },
      ],
      'data.activities[1].id repeats [0].id ("x")',
    );
    await refused([], 'data.activities must contain at least 1 item(s)');
    await refused(
      Array.from({ length: 501 }, () => base),
      'data.activities must contain at most 500 items',
    );
    expectError(
      await call('/v2/activities/add', { organizationId: 'act-bad', activities: [base] }),
      400,
      'INVALID_ARGUMENT',
      'data.documentId must be a non-empty string',
    );
    // Nothing of the refused batches was stored.
    assert.deepEqual((await get({ organizationId: 'act-bad' })).data, []);
  });

  describe('filters and order', () => {
    const org = 'act-filters';
    // 12 records: 3 documents × 2 users × 2 feature types, each at its own timestamp.
    const records: { id: string; documentId: string; userId: string; featureType: string; actionType: string; targetEntityId: string; timestamp: number }[] =
      [];

    before(async () => {
      let t = 10_000;
      for (const documentId of ['d1', 'd2', 'd3']) {
        const batch: Record<string, unknown>[] = [];
        for (const userId of ['u1', 'u2']) {
          for (const featureType of ['comment', 'reaction']) {
            const record = {
              id: `a${t}`,
              documentId,
              userId,
              featureType,
              actionType: `${featureType}.add`,
              targetEntityId: `${documentId}-${featureType}`,
              timestamp: t,
            };
            records.push(record);
            batch.push({
              id: record.id,
              featureType,
              actionType: record.actionType,
              actionUser: user(userId),
              targetEntityId: record.targetEntityId,
              timestamp: t,
            });
            t += 10;
          }
        }
        await add(org, documentId, batch);
      }
    });

    const ids = (data: { id: string }[]) => data.map((r) => r.id);
    const expected = (keep: (r: (typeof records)[number]) => boolean, order: 'asc' | 'desc' = 'desc') => {
      const list = records.filter(keep).map((r) => r.id);
      return order === 'desc' ? list.reverse() : list;
    };

    it('returns newest first by default and oldest first with order asc', async () => {
      assert.deepEqual(
        ids((await get({ organizationId: org })).data),
        expected(() => true),
      );
      assert.deepEqual(
        ids((await get({ organizationId: org, order: 'asc' })).data),
        expected(() => true, 'asc'),
      );
    });

    it('applies each filter alone', async () => {
      assert.deepEqual(
        ids((await get({ organizationId: org, documentId: 'd2' })).data),
        expected((r) => r.documentId === 'd2'),
      );
      assert.deepEqual(
        ids((await get({ organizationId: org, targetEntityId: 'd3-reaction' })).data),
        expected((r) => r.targetEntityId === 'd3-reaction'),
      );
      assert.deepEqual(
        ids((await get({ organizationId: org, featureTypes: ['reaction'] })).data),
        expected((r) => r.featureType === 'reaction'),
      );
      assert.deepEqual(
        ids((await get({ organizationId: org, actionTypes: ['comment.add'] })).data),
        expected((r) => r.actionType === 'comment.add'),
      );
      assert.deepEqual(
        ids((await get({ organizationId: org, userId: 'u1' })).data),
        expected((r) => r.userId === 'u1'),
      );
      assert.deepEqual(ids((await get({ organizationId: org, activityIds: ['a10030', 'a10000', 'missing'] })).data), ['a10030', 'a10000']);
      assert.deepEqual((await get({ organizationId: org, featureTypes: [] })).data, []);
      assert.deepEqual((await get({ organizationId: 'act-no-such-org' })).data, []);
    });

    it('listed activityIds are looked up by key, not found by walking the organization in page order', async () => {
      const read = await statementOf(keyed.app.dataSource, /FROM activity WHERE/, () =>
        get({ organizationId: org, activityIds: ['a10030', 'a10000', 'a10001', 'missing'] }),
      );
      const plan = await planOf(keyed.app.dataSource, read);
      assert.doesNotMatch(plan, /activity_page_idx/, plan);
      // PostgreSQL, on a test's empty statistics, may take any index for the WHERE; checked there:
      // no index gives the order, so it is free to look the ids up (it does, with real statistics).
      assert.match(plan, /sqlite_autoindex_activity_1 \(api_key_id=\? AND organization_id=\? AND id=\?\)|Sort Key: \(\(activity\."timestamp" \+ 0\)\)/, plan);
    });

    it("action types are read through their index, each type's newest first, and paged in order", async () => {
      const types = ['comment.add', 'reaction.add'];
      const seen: string[] = [];
      let pageToken: string | undefined;
      do {
        // A type listed twice is read once.
        const page = await get({ organizationId: org, actionTypes: [...types, 'comment.add'], pageSize: 5, ...(pageToken ? { pageToken } : {}) });
        seen.push(...ids(page.data));
        pageToken = page.pageToken as string | undefined;
      } while (pageToken);
      assert.deepEqual(
        seen,
        expected((r) => types.includes(r.actionType)),
      );
      if (keyed.app.dataSource.options.type === 'postgres') await keyed.app.dataSource.query('ANALYZE activity');
      for (const actionTypes of [['reaction.add'], types]) {
        const read = await statementOf(keyed.app.dataSource, /FROM activity WHERE/, () => get({ organizationId: org, actionTypes }));
        const plan = await planOf(keyed.app.dataSource, read);
        assert.doesNotMatch(plan, /activity_page_idx/, plan);
        assert.match(plan, /activity_action_idx/, plan);
      }
    });

    it('combines filters with AND', async () => {
      assert.deepEqual(
        ids((await get({ organizationId: org, documentId: 'd1', userId: 'u2', featureTypes: ['comment', 'reaction'], order: 'asc' })).data),
        expected((r) => r.documentId === 'd1' && r.userId === 'u2', 'asc'),
      );
      assert.deepEqual(
        ids((await get({ organizationId: org, documentId: 'd3', actionTypes: ['reaction.add'], userId: 'u1' })).data),
        expected((r) => r.documentId === 'd3' && r.actionType === 'reaction.add' && r.userId === 'u1'),
      );
      assert.deepEqual((await get({ organizationId: org, documentId: 'd1', targetEntityId: 'd2-comment' })).data, []);
    });

    it('refuses bad filters with the field named', async () => {
      expectError(await call('/v2/activities/get', { organizationId: org, order: 'up' }), 400, 'INVALID_ARGUMENT', 'data.order must be one of: asc, desc');
      expectError(
        await call('/v2/activities/get', { organizationId: org, pageSize: 0 }),
        400,
        'INVALID_ARGUMENT',
        'data.pageSize must be an integer between 1 and 1000',
      );
      expectError(
        await call('/v2/activities/get', { organizationId: org, pageSize: 1001 }),
        400,
        'INVALID_ARGUMENT',
        'data.pageSize must be an integer between 1 and 1000',
      );
      expectError(
        await call('/v2/activities/get', { organizationId: org, featureTypes: ['comment', 'poll'] }),
        400,
        'INVALID_ARGUMENT',
        /^data\.featureTypes\[1\] must be one of/,
      );
      expectError(await call('/v2/activities/get', { organizationId: org, nope: true }), 400, 'INVALID_ARGUMENT', 'Unknown field: data.nope');
      expectError(await call('/v2/activities/get', {}), 400, 'INVALID_ARGUMENT', 'data.organizationId must be a non-empty string');
    });
  });

  describe('paging', () => {
    const org = 'act-paging';
    const total = 2_500;

    before(async () => {
      // Timestamps repeat in runs of 7, so the id breaks ties inside a page and across pages.
      for (let start = 0; start < total; start += 500) {
        const batch = Array.from({ length: 500 }, (_, i) => {
          const n = start + i;
          return {
            id: `p${String(n).padStart(5, '0')}`,
            featureType: 'comment',
            actionType: 'comment.add',
            actionUser: user('u'),
            timestamp: 1_000_000 + Math.floor(n / 7),
          };
        });
        await add(org, 'paged-doc', batch);
      }
    });

    async function readAll(data: Record<string, unknown>, between?: (page: number) => Promise<void>): Promise<{ ids: string[]; pages: number[] }> {
      const ids: string[] = [];
      const pages: number[] = [];
      let pageToken: string | undefined;
      do {
        const result = await get({ organizationId: org, ...data, ...(pageToken ? { pageToken } : {}) });
        ids.push(...result.data.map((r: { id: string }) => r.id));
        pages.push(result.data.length);
        pageToken = result.pageToken;
        if (between && pageToken) await between(pages.length);
      } while (pageToken);
      return { ids, pages };
    }

    it('the default page holds 1000 records, and the last page no token', async () => {
      const { ids, pages } = await readAll({});
      assert.deepEqual(pages, [1000, 1000, 500]);
      assert.equal(new Set(ids).size, total);
    });

    it('pages of 1 walk in order', async () => {
      const first = await get({ organizationId: org, pageSize: 1, order: 'asc' });
      assert.deepEqual(
        first.data.map((r: { id: string }) => r.id),
        ['p00000'],
      );
      const second = await get({ organizationId: org, pageSize: 1, order: 'asc', pageToken: first.pageToken });
      assert.deepEqual(
        second.data.map((r: { id: string }) => r.id),
        ['p00001'],
      );
    });

    it('records added while paging neither repeat nor hide the others', async () => {
      for (const order of ['asc', 'desc'] as const) {
        let added = 0;
        const { ids } = await readAll({ pageSize: 300, order, documentId: 'paged-doc' }, async () => {
          // Newer than everything (now), and backfilled into the middle of the order.
          await add(org, 'paged-doc', [
            { id: `new-${order}-${added}`, featureType: 'comment', actionType: 'comment.add', actionUser: user('u') },
            { id: `mid-${order}-${added++}`, featureType: 'comment', actionType: 'comment.add', actionUser: user('u'), timestamp: 1_000_100 },
          ]);
        });
        assert.equal(new Set(ids).size, ids.length, 'no record repeats');
        const original = ids.filter((id) => id.startsWith('p'));
        assert.equal(original.length, total, 'every record present before paging began is read');
        const sorted = [...original].sort();
        assert.deepEqual(original, order === 'asc' ? sorted : sorted.reverse());
      }
    });

    it('a tampered, foreign or re-filtered token is refused', async () => {
      const { pageToken } = await get({ organizationId: org, pageSize: 10 });
      assert.ok(pageToken);
      const invalid = (response: { status: number; body: unknown }) => expectError(response, 400, 'INVALID_ARGUMENT', 'Invalid page token.');
      const flipped = `${pageToken.slice(0, 20)}${pageToken[20] === 'A' ? 'B' : 'A'}${pageToken.slice(21)}`;
      invalid(await call('/v2/activities/get', { organizationId: org, pageSize: 10, pageToken: flipped }));
      invalid(await call('/v2/activities/get', { organizationId: org, pageSize: 10, pageToken, order: 'asc' }));
      invalid(await call('/v2/activities/get', { organizationId: org, pageSize: 10, pageToken, documentId: 'paged-doc' }));
      invalid(await call('/v2/organizations/documents/get', { organizationId: org, pageToken }));
      const other = agentFor(keyed.app, await createKey(keyed.app));
      invalid(await other('/v2/activities/get', { organizationId: org, pageSize: 10, pageToken }));
      // The same token with the same filters still works (pageSize is not a filter).
      assert.equal((await get({ organizationId: org, pageSize: 20, pageToken })).data.length, 20);
    });
  });

  describe('update and delete', () => {
    const org = 'act-writes';

    before(async () => {
      await add(org, 'doc-a', [
        {
          id: 'w1',
          featureType: 'comment',
          actionType: 'comment.add',
          actionUser: user('u'),
          targetEntityId: 'thread-1',
          entityData: { text: 'one' },
          actionIcon: 'i1',
        },
        { id: 'w2', featureType: 'comment', actionType: 'comment.add', actionUser: user('u'), targetEntityId: 'thread-1' },
        { id: 'w3', featureType: 'comment', actionType: 'comment.add', actionUser: user('u'), targetEntityId: 'thread-2' },
      ]);
      await add(org, 'doc-b', [
        { id: 'w4', featureType: 'comment', actionType: 'comment.add', actionUser: user('u'), targetEntityId: 'thread-1' },
        { id: 'w5', featureType: 'reaction', actionType: 'reaction.add', actionUser: user('u'), targetEntityId: 'thread-3' },
        { id: 'w6', featureType: 'reaction', actionType: 'reaction.add', actionUser: user('u') },
      ]);
    });

    const byId = async () => new Map<string, Record<string, any>>((await get({ organizationId: org })).data.map((r: { id: string }) => [r.id, r]));

    it('update changes only the updatable fields and reports missing records per item', async () => {
      const before = (await byId()).get('w1')!;
      const result = expectSuccess(
        await call('/v2/activities/update', {
          organizationId: org,
          activities: [
            { id: 'w1', entityData: { text: 'edited' }, changes: { text: { from: 'one', to: 'edited' } } },
            { id: 'gone', actionIcon: 'x' },
          ],
        }),
        'Activity(s) updated successfully.',
      ).data;
      assert.deepEqual(result, {
        w1: { success: true, id: 'w1', message: 'Activity updated.' },
        gone: { success: false, id: 'gone', message: 'Failed to update activity.' },
      });
      const after = (await byId()).get('w1')!;
      assert.deepEqual(after, { ...before, entityData: { text: 'edited' }, changes: { text: { from: 'one', to: 'edited' } } });
      expectError(
        await call('/v2/activities/update', { organizationId: org, activities: [{ id: 'w1', featureType: 'reaction' }] }),
        400,
        'INVALID_ARGUMENT',
        'Unknown field: data.activities[0].featureType',
      );
      expectError(
        await call('/v2/activities/update', { organizationId: org, activities: [{ actionIcon: 'x' }] }),
        400,
        'INVALID_ARGUMENT',
        'data.activities[0].id is required',
      );
    });

    it('concurrent updates of different fields of one record all survive', async () => {
      const updates = [
        { changes: { status: { from: 'a', to: 'b' } } },
        { entityData: { text: 'parallel' } },
        { entityTargetData: 'target' },
        { displayMessageTemplate: '{{x}}' },
        { displayMessageTemplateData: { x: 1 } },
        { actionIcon: 'icon' },
      ];
      for (let round = 0; round < 3; round++) {
        await Promise.all(updates.map((fields) => call('/v2/activities/update', { organizationId: org, activities: [{ id: 'w3', ...fields }] })));
        const record = (await byId()).get('w3')!;
        for (const fields of updates) for (const [field, value] of Object.entries(fields)) assert.deepEqual(record[field], value, `${field} survived`);
      }
    });

    it('delete needs at least one of documentId, activityIds, targetEntityId', async () => {
      expectError(
        await call('/v2/activities/delete', { organizationId: org }),
        400,
        'INVALID_ARGUMENT',
        'At least one of data.documentId, data.activityIds or data.targetEntityId is required.',
      );
    });

    it('deletes by entity within a document (conditions combine with AND)', async () => {
      const result = expectSuccess(
        await call('/v2/activities/delete', { organizationId: org, documentId: 'doc-a', targetEntityId: 'thread-1' }),
        'Activity(s) deleted successfully.',
      ).data;
      assert.deepEqual(result, {
        w1: { success: true, id: 'w1', message: 'Activity deleted.' },
        w2: { success: true, id: 'w2', message: 'Activity deleted.' },
      });
      assert.deepEqual([...(await byId()).keys()].sort(), ['w3', 'w4', 'w5', 'w6']);
    });

    it('deletes by ids, reporting the ones not found', async () => {
      const result = expectSuccess(await call('/v2/activities/delete', { organizationId: org, activityIds: ['w3', 'w1', 'nope'] })).data;
      assert.deepEqual(result, {
        w3: { success: true, id: 'w3', message: 'Activity deleted.' },
        w1: { success: false, id: 'w1', message: 'Failed to delete activity.' },
        nope: { success: false, id: 'nope', message: 'Failed to delete activity.' },
      });
    });

    it('deletes by entity, and by document', async () => {
      assert.deepEqual(Object.keys(expectSuccess(await call('/v2/activities/delete', { organizationId: org, targetEntityId: 'thread-3' })).data), ['w5']);
      assert.deepEqual(
        Object.keys(expectSuccess(await call('/v2/activities/delete', { organizationId: org, documentId: 'doc-b', activityIds: ['w6', 'w4'] })).data).sort(),
        ['w4', 'w6'],
      );
      assert.deepEqual([...(await byId()).keys()], []);
      assert.deepEqual(expectSuccess(await call('/v2/activities/delete', { organizationId: org, documentId: 'doc-b' })).data, {});
    });
  });

  it('another key sees, updates and deletes nothing of this key', async () => {
    await add('act-private', 'doc', [{ id: 'secret', featureType: 'comment', actionType: 'comment.add', actionUser: user('a') }]);
    const other = agentFor(keyed.app, await createKey(keyed.app));
    assert.deepEqual(expectSuccess(await other('/v2/activities/get', { organizationId: 'act-private' })).data, []);
    assert.deepEqual(expectSuccess(await other('/v2/activities/get', { organizationId: 'act-private', activityIds: ['secret'] })).data, []);
    assert.equal(
      expectSuccess(await other('/v2/activities/update', { organizationId: 'act-private', activities: [{ id: 'secret', actionIcon: 'x' }] })).data.secret
        .success,
      false,
    );
    assert.equal(expectSuccess(await other('/v2/activities/delete', { organizationId: 'act-private', activityIds: ['secret'] })).data.secret.success, false);
    // The other key's own record with the same id and organization is its own.
    expectSuccess(
      await other('/v2/activities/add', {
        organizationId: 'act-private',
        documentId: 'doc',
        activities: [{ id: 'secret', featureType: 'reaction', actionType: 'reaction.add', actionUser: user('b') }],
      }),
    );
    const mine = (await get({ organizationId: 'act-private' })).data;
    assert.equal(mine.length, 1);
    assert.equal(mine[0].featureType, 'comment');
    assert.equal(mine[0].actionIcon, undefined);
  });

  it('observers of the log see each write in its transaction: a failing observer undoes the write', async () => {
    const log = keyed.app.app.get(ActivityStore);
    const seen: string[] = [];
    let fail = false;
    log.observers.add({
      activitiesWritten: async (_manager, _apiKeyId, activities) => {
        seen.push(...activities.map((a) => `written:${a.id}`));
        if (fail) throw new Error('observer failed');
      },
      activitiesDeleted: async (_manager, _apiKeyId, _organizationId, ids) => {
        seen.push(...ids.map((id) => `deleted:${id}`));
      },
    });
    await add('act-observed', 'doc', [{ id: 'o1', featureType: 'comment', actionType: 'comment.add', actionUser: user('a') }]);
    expectSuccess(await call('/v2/activities/update', { organizationId: 'act-observed', activities: [{ id: 'o1', actionIcon: 'x' }] }));
    expectSuccess(await call('/v2/activities/delete', { organizationId: 'act-observed', activityIds: ['o1'] }));
    assert.deepEqual(seen, ['written:o1', 'written:o1', 'deleted:o1']);
    fail = true;
    expectError(
      await call('/v2/activities/add', {
        organizationId: 'act-observed',
        documentId: 'doc',
        activities: [{ id: 'o2', featureType: 'comment', actionType: 'comment.add', actionUser: user('a') }],
      }),
      500,
      'INTERNAL',
    );
    fail = false;
    assert.deepEqual((await get({ organizationId: 'act-observed' })).data, []);
  });
});
