import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PAGE_BYTES } from '../src/common/paging.js';
import { expectError, expectSuccess, withKeyedApp } from './factories/workspace.js';

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

  /** Reads every page of `path`: each within `PAGE_BYTES` and one record, none lost. */
  async function readAll(
    path: string,
    request: Record<string, unknown>,
    tokens: { sent: string; answered: string },
    listOf = (result: any) => result.data as any[],
  ) {
    const records: any[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const result = expectSuccess(await call(path, { ...request, ...(token ? { [tokens.sent]: token } : {}) }));
      const page = listOf(result);
      assert.ok(page.length >= 1, `${path} page ${pages} is empty`);
      const bytes = JSON.stringify(page).length;
      assert.ok(bytes < PAGE_BYTES + 2 * BIG, `${path} page ${pages} holds ${bytes} bytes`);
      records.push(...page);
      token = result[tokens.answered] as string | undefined;
      pages++;
    } while (token);
    return { records, pages };
  }

  const big = (i: number) => `${i}`.padEnd(BIG, '.');
  const count = Math.ceil((2.2 * PAGE_BYTES) / BIG);
  const numbered = (prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);

  it('organizations/get pages organizations of large metadata by size', async () => {
    for (const id of numbered('org-meta')) expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: id, blob: big(0) }] }));
    const { records, pages } = await readAll('/v2/organizations/get', {}, { sent: 'pageToken', answered: 'nextPageToken' });
    assert.deepEqual(
      records.map((o) => o.id).filter((id) => id.startsWith('org-meta')),
      numbered('org-meta'),
    );
    assert.ok(pages >= 3, `${pages} pages`);
  });

  it('documents/get pages documents of large metadata by size', async () => {
    for (const id of numbered('doc-meta'))
      expectSuccess(
        await call('/v2/organizations/documents/add', { organizationId: 'org-docs', createOrganization: true, documents: [{ documentId: id, blob: big(0) }] }),
      );
    const { records, pages } = await readAll('/v2/organizations/documents/get', { organizationId: 'org-docs' }, { sent: 'pageToken', answered: 'pageToken' });
    assert.deepEqual(
      records.map((d) => d.id),
      numbered('doc-meta'),
    );
    assert.ok(pages >= 3, `${pages} pages`);
  });

  it('notifications/get pages large notifications by size, in a document and in an inbox', async () => {
    const ids = numbered('note');
    for (const notificationId of ids)
      expectSuccess(
        await call('/v2/notifications/add', {
          organizationId: 'org-notes',
          createOrganization: true,
          documentId: 'doc',
          createDocument: true,
          notificationId,
          actionUser: { userId: 'ana' },
          displayHeadlineMessageTemplate: 'x',
          displayBodyMessage: 'x',
          notifyUsers: [{ userId: 'bob' }],
          notifyAll: false,
          notificationSourceData: { blob: big(0) },
        }),
      );
    for (const request of [
      { organizationId: 'org-notes', documentId: 'doc', order: 'asc' },
      { organizationId: 'org-notes', userId: 'bob', order: 'asc' },
    ]) {
      const { records, pages } = await readAll('/v2/notifications/get', request, { sent: 'pageToken', answered: 'pageToken' });
      assert.deepEqual(
        records.map((n) => n.id),
        ids,
      );
      assert.ok(pages >= 3, `${pages} pages`);
    }
  });

  describe('a thread larger than a page', () => {
    const place = { organizationId: 'org-thread', documentId: 'doc' };
    const comment = (i: number) => ({ from: { userId: `writer-${i % 3}` }, context: { blob: big(i) } });

    before(async () => {
      expectSuccess(
        await call('/v2/commentannotations/add', {
          ...place,
          createOrganization: true,
          createDocument: true,
          commentAnnotations: [{ annotationId: 'small', commentData: [{ from: { userId: 'ana' }, commentText: 'hi' }] }],
        }),
      );
      expectSuccess(await call('/v2/commentannotations/add', { ...place, commentAnnotations: [{ annotationId: 'large', commentData: [comment(0)] }] }));
      for (let i = 1; i < 2 * count; i++)
        expectSuccess(await call('/v2/commentannotations/comments/add', { ...place, annotationId: 'large', commentData: [comment(i)] }));
    });

    it('comments/get pages its comments by size and continues them with nextPageToken', async () => {
      const { records, pages } = await readAll(
        '/v2/commentannotations/comments/get',
        { ...place, annotationId: 'large' },
        { sent: 'pageToken', answered: 'nextPageToken' },
      );
      assert.deepEqual(
        records.map((c) => c.commentId),
        Array.from({ length: 2 * count }, (_, i) => i + 1),
      );
      assert.ok(pages >= 5, `${pages} pages`);
      // By count too, with the filters bound to the token.
      const first = expectSuccess(await call('/v2/commentannotations/comments/get', { ...place, annotationId: 'large', userIds: ['writer-1'], pageSize: 2 }));
      assert.deepEqual(
        first.data.map((c: any) => c.commentId),
        [2, 5],
      );
      const second = expectSuccess(
        await call('/v2/commentannotations/comments/get', {
          ...place,
          annotationId: 'large',
          userIds: ['writer-1'],
          pageSize: 2,
          pageToken: first.nextPageToken,
        }),
      );
      assert.deepEqual(
        second.data.map((c: any) => c.commentId),
        [8, 11],
      );
      expectError(
        await call('/v2/commentannotations/comments/get', { ...place, annotationId: 'large', pageSize: 2, pageToken: first.nextPageToken }),
        400,
        'INVALID_ARGUMENT',
        'Invalid page token.',
      );
      // Requested ids that do not exist are answered as null on the last page only.
      const named = expectSuccess(await call('/v2/commentannotations/comments/get', { ...place, annotationId: 'large', commentIds: [1, 999], pageSize: 1 }));
      assert.deepEqual(
        named.data.map((c: any) => c?.commentId ?? null),
        [1, null],
      );
    });

    it('annotations get answers the thread with a page of its comments and a commentsPageToken for the rest', async () => {
      const result = expectSuccess(await call('/v2/commentannotations/get', { ...place, order: 'asc' }));
      const bytes = JSON.stringify(result.data).length;
      assert.ok(bytes < 2 * PAGE_BYTES + 2 * BIG, `the page holds ${bytes} bytes`);
      const [small, large] = result.data as any[];
      assert.equal(small.annotationId, 'small');
      assert.equal(small.commentsPageToken, undefined);
      assert.equal(large.annotationId, 'large');
      assert.ok(large.comments.length >= 1 && large.comments.length < 2 * count);
      const continued = expectSuccess(
        await call('/v2/commentannotations/comments/get', { ...place, annotationId: 'large', pageToken: large.commentsPageToken }),
      );
      assert.equal(continued.data[0].commentId, large.comments.length + 1);
    });

    it('v1 gets, which have no paging, answer every comment: the large thread whole, without commentsPageToken', async () => {
      const all = Array.from({ length: 2 * count }, (_, i) => i + 1);
      const threads = expectSuccess(await call('/v1/commentannotations/get', place)).data as any[];
      const large = threads.find((thread) => thread.annotationId === 'large');
      assert.equal(large.commentsPageToken, undefined);
      assert.deepEqual(
        large.comments.map((c: any) => c.commentId),
        all,
      );
      const comments = expectSuccess(await call('/v1/commentannotations/comments/get', { ...place, annotationId: 'large' })).data as any[];
      assert.deepEqual(
        comments.map((c) => c.commentId),
        all,
      );
    });

    it('a comment add costs the same whatever the thread size', async () => {
      const timeAdds = async (annotationId: string) => {
        const times: number[] = [];
        for (let i = 0; i < 7; i++) {
          const started = performance.now();
          expectSuccess(
            await call('/v2/commentannotations/comments/add', {
              ...place,
              annotationId,
              commentData: [{ from: { userId: 'ana' }, commentText: 'again', triggerActivities: true, triggerNotification: true }],
            }),
          );
          times.push(performance.now() - started);
        }
        return times.sort((a, b) => a - b)[3]!;
      };
      const onSmall = await timeAdds('small');
      const onLarge = await timeAdds('large');
      // Reading the large thread's comments (about 2 × 2.2 × PAGE_BYTES) took hundreds of ms.
      assert.ok(onLarge < 3 * onSmall + 25, `median add: ${onLarge.toFixed(1)} ms on the large thread, ${onSmall.toFixed(1)} ms on a small one`);
    });
  });
});
