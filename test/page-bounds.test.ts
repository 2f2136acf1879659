import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PAGE_BYTES } from '../src/common/paging.js';
import { expectSuccess, withKeyedApp } from './factories/workspace.js';

/** Pages stay within `PAGE_BYTES` of records however large each record is, and continue with their token. */
describe('answers of bounded size', () => {
  const keyed = withKeyedApp();
  const call = (path: string, data: unknown) => keyed.call(path, data);
  const BIG = 600 * 1024;

  it('activities/get cuts a page of large records short and continues it with pageToken, losing none', async () => {
    const count = Math.ceil((2.2 * PAGE_BYTES) / BIG);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = `big-${String(i).padStart(3, '0')}`;
      ids.push(id);
      expectSuccess(
        await call('/v2/activities/add', {
          organizationId: 'org-big',
          documentId: 'doc',
          activities: [
            {
              id,
              featureType: 'comment',
              actionType: 'comment.add',
              actionUser: { userId: 'u' },
              timestamp: 1_700_000_000_000 + i,
              entityData: { text: `${i}`.padEnd(BIG, '.') },
            },
          ],
        }),
      );
    }
    const seen: string[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const response = await call('/v2/activities/get', { organizationId: 'org-big', order: 'asc', ...(pageToken ? { pageToken } : {}) });
      const result = expectSuccess(response);
      const records = result.data as { id: string }[];
      assert.ok(records.length >= 1);
      assert.ok(JSON.stringify(records).length < PAGE_BYTES + 2 * BIG, `page ${pages} holds ${JSON.stringify(records).length} bytes`);
      seen.push(...records.map((record) => record.id));
      pageToken = result.pageToken as string | undefined;
      pages++;
    } while (pageToken);
    assert.deepEqual(seen, ids);
    assert.ok(pages >= 3, `${pages} pages`);
  });

  it("crdt/get pages a document's editors the same way", async () => {
    const count = Math.ceil((1.5 * PAGE_BYTES) / (900 * 1024));
    for (let i = 0; i < count; i++) {
      expectSuccess(
        await call('/v2/crdt/add', {
          organizationId: 'org-big',
          documentId: 'doc-crdt',
          editorId: `e${String(i).padStart(2, '0')}`,
          type: 'text',
          data: 'x'.repeat(900 * 1024),
        }),
      );
    }
    const first = expectSuccess(await call('/v2/crdt/get', { organizationId: 'org-big', documentId: 'doc-crdt' }));
    assert.ok((first.data as unknown[]).length < count);
    assert.equal(typeof first.pageToken, 'string');
    const second = expectSuccess(await call('/v2/crdt/get', { organizationId: 'org-big', documentId: 'doc-crdt', pageToken: first.pageToken }));
    assert.equal(second.pageToken, undefined);
    const editors = [...(first.data as { id: string }[]), ...(second.data as { id: string }[])].map((editor) => editor.id);
    assert.deepEqual(
      editors,
      Array.from({ length: count }, (_, i) => `e${String(i).padStart(2, '0')}`),
    );
    // Small pages by count, too.
    const one = expectSuccess(await call('/v2/crdt/get', { organizationId: 'org-big', documentId: 'doc-crdt', pageSize: 1 }));
    assert.deepEqual(
      (one.data as { id: string }[]).map((editor) => editor.id),
      ['e00'],
    );
  });
});
