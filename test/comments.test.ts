import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { eventually, startApp, type TestApp } from './helpers/app.js';
import { SmtpReceiver } from './helpers/smtp-receiver.js';
import { deliverySuite, type Call } from './helpers/webhooks.js';
import { PageTokens } from '../src/common/paging.js';
import { agentFor, createKey, expectError, expectSuccess, withKeyedApp } from './factories/workspace.js';
import { planOf, statementOf } from './helpers/query-plan.js';

const ORG = 'org-c';
const DOC = 'doc-c';
const ana = { userId: 'ana', name: 'Ana', email: 'ana@example.com' };
const bob = { userId: 'bob', name: 'Bob', email: 'bob@example.com' };
const mentionBob = { commentText: 'Hey {{bob}}, look', commentHtml: '<p>Hey {{bob}}, look</p>', taggedUserContacts: [{ userId: 'bob', contact: bob }] };

/** Adds one thread by `from` and answers its id. */
async function addThread(call: Call, fields: Record<string, unknown> = {}, comment: Record<string, unknown> = {}, documentId = DOC): Promise<string> {
  const result = expectSuccess(
    await call('/v2/commentannotations/add', {
      organizationId: ORG,
      documentId,
      createDocument: true,
      commentAnnotations: [{ ...fields, commentData: [{ commentText: 'first', from: ana, ...comment }] }],
    }),
    'Comment Annotation(s) added successfully.',
  );
  const [entry] = Object.values(result.data as Record<string, { annotationId: string }>);
  return entry!.annotationId;
}

describe('comment annotations and comments (upstream v2/commentannotations)', () => {
  // The delivery worker writes the inbox entries of notifying comments.
  const ctx = withKeyedApp({ DELIVERY_CONCURRENCY: '4' });
  const call: Call = (path, data) => ctx.call(path, data);

  it('adds a thread with a mention and answers it with its comments, in upstream shape', async () => {
    expectSuccess(await call('/v2/users/add', { organizationId: ORG, users: [ana, bob] }));
    const result = expectSuccess(
      await call('/v2/commentannotations/add', {
        organizationId: ORG,
        documentId: DOC,
        createDocument: true,
        commentAnnotations: [
          {
            annotationId: 'thread-1',
            location: { id: 'loc-1', locationName: 'Intro' },
            commentData: [
              { ...mentionBob, from: ana },
              { commentText: 'second', from: bob },
            ],
          },
        ],
      }),
    );
    assert.deepEqual(result.data, { 'thread-1': { success: true, annotationId: 'thread-1', commentIds: [1, 2], message: 'Added Successfully' } });
    const page = expectSuccess(
      await call('/v2/commentannotations/get', { organizationId: ORG, documentId: DOC, annotationIds: ['thread-1', 'missing'] }),
      'Annotation(s) fetched successfully.',
    );
    const [thread, missing] = page.data as Record<string, any>[];
    assert.equal(missing, null);
    assert.equal(thread!.annotationId, 'thread-1');
    assert.equal(thread!.locationId, 'loc-1');
    assert.deepEqual(thread!.status, { id: 'OPEN', name: 'Open', type: 'default', color: '#625DF5', lightColor: '#E7E8FA' });
    assert.deepEqual(thread!.metadata, { apiKey: ctx.key.apiKey, organizationId: ORG, documentId: DOC });
    assert.deepEqual(thread!.visibilityConfig, { type: 'public' });
    assert.equal(thread!.type, 'comment');
    assert.equal(thread!.sourceType, 'rest-api');
    assert.deepEqual(thread!.from, ana);
    assert.equal(thread!.comments.length, 2);
    const [first] = thread!.comments as Record<string, any>[];
    assert.equal(first!.commentId, 1);
    assert.equal(first!.commentText, 'Hey {{bob}}, look');
    assert.equal(first!.status, 'added');
    assert.deepEqual(first!.to, [bob]);
    assert.match(first!.lastUpdated, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(
      expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, mentionedUserIds: ['bob'] })).data.map((t: any) => t.annotationId),
      ['thread-1'],
    );
    assert.deepEqual(expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, mentionedUserIds: ['ana'] })).data, []);
  });

  it('comments add, get, update and delete on one thread', async () => {
    const id = await addThread(call);
    const added = expectSuccess(
      await call('/v2/commentannotations/comments/add', {
        organizationId: ORG,
        documentId: DOC,
        annotationId: id,
        commentData: [{ commentText: 'reply', from: bob }],
      }),
      'Comment(s) added successfully.',
    );
    assert.deepEqual(added.data, [2]);
    const got = expectSuccess(
      await call('/v2/commentannotations/comments/get', { organizationId: ORG, documentId: DOC, annotationId: id, commentIds: [2, 9] }),
      'Comments retrieved successfully.',
    );
    assert.equal(got.data[0].commentText, 'reply');
    assert.equal(got.data[1], null);
    const updated = expectSuccess(
      await call('/v2/commentannotations/comments/update', {
        organizationId: ORG,
        documentId: DOC,
        annotationId: id,
        commentIds: [2, 9],
        updatedData: { commentText: 'edited' },
      }),
      'Comment updated successfully.',
    );
    assert.deepEqual(updated.data, { 2: { success: true, id: 2, message: 'Updated successfully' }, 9: { success: false, id: 9, message: 'Not found' } });
    const after = expectSuccess(await call('/v2/commentannotations/comments/get', { organizationId: ORG, documentId: DOC, annotationId: id })).data as Record<
      string,
      any
    >[];
    assert.deepEqual(
      after.map((c) => [c.commentId, c.commentText, c.status]),
      [
        [1, 'first', 'added'],
        [2, 'edited', 'updated'],
      ],
    );
    const deleted = expectSuccess(
      await call('/v2/commentannotations/comments/delete', { organizationId: ORG, documentId: DOC, annotationId: id, commentIds: [1] }),
      'Comments(s) deleted successfully.',
    );
    assert.deepEqual(deleted.data, { 1: { success: true, id: 1, message: 'Deleted successfully' } });
    assert.deepEqual(
      expectSuccess(await call('/v2/commentannotations/comments/get', { organizationId: ORG, documentId: DOC, annotationId: id })).data.map(
        (c: any) => c.commentId,
      ),
      [2],
    );
    expectError(
      await call('/v2/commentannotations/comments/add', {
        organizationId: ORG,
        documentId: DOC,
        annotationId: 'nope',
        commentData: [{ commentText: 'x', from: bob }],
      }),
      404,
      'NOT_FOUND',
      'Annotation not found.',
    );
  });

  it('concurrent comment adds on one thread get distinct ids', async () => {
    const id = await addThread(call);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('/v2/commentannotations/comments/add', {
          organizationId: ORG,
          documentId: DOC,
          annotationId: id,
          commentData: [{ commentText: `c${i}`, from: bob }],
        }),
      ),
    );
    const ids = answers.flatMap((answer) => expectSuccess(answer).data as number[]).sort((a, b) => a - b);
    assert.deepEqual(ids, [2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(expectSuccess(await call('/v2/commentannotations/comments/get', { organizationId: ORG, documentId: DOC, annotationId: id })).data.length, 9);
  });

  it('forty adds at once with both triggers all succeed (reads inside a write use its own connection, never a second one from the pool)', async () => {
    expectSuccess(await call('/v2/users/add', { organizationId: 'org-burst', users: [ana, bob] }));
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        call('/v2/commentannotations/add', {
          organizationId: 'org-burst',
          documentId: 'doc-burst',
          createDocument: true,
          commentAnnotations: [{ commentData: [{ ...mentionBob, from: ana, triggerActivities: true, triggerNotification: true }] }],
        }),
      ),
    );
    for (const answer of answers) expectSuccess(answer);
    // Inbox entries are written by the delivery worker, a moment after the answers.
    const bobs = await eventually(
      async () => expectSuccess(await call('/v2/notifications/get', { organizationId: 'org-burst', userId: 'bob' })).data as unknown[],
      (entries) => entries.length >= 40,
    );
    assert.equal(bobs.length, 40);
    assert.equal((expectSuccess(await call('/v2/activities/get', { organizationId: 'org-burst' })).data as unknown[]).length, 40);
  });

  it('a write that fails creates nothing: a comment to a missing thread leaves no organization or document behind', async () => {
    const place = { organizationId: 'org-never', documentId: 'doc-never' };
    expectError(
      await call('/v2/commentannotations/comments/add', {
        ...place,
        createOrganization: true,
        createDocument: true,
        annotationId: 'nope',
        commentData: [{ commentText: 'x', from: ana }],
      }),
      404,
      'NOT_FOUND',
      'Annotation not found.',
    );
    expectError(
      await call('/v2/commentannotations/add', { ...place, commentAnnotations: [{ commentData: [{ commentText: 'x', from: ana }] }] }),
      404,
      'NOT_FOUND',
    );
  });

  it('update: status, resolver (cleared on reopening), priority, assignee, suggestion; users replaced', async () => {
    const id = await addThread(call, { type: 'suggestion', suggestion: { targetId: 'row.1', newValue: 3, status: 'accepted' } });
    const resolved = { id: 'RESOLVED', name: 'Resolved', type: 'terminal' };
    expectSuccess(
      await call('/v2/commentannotations/update', {
        organizationId: ORG,
        documentId: DOC,
        annotationIds: [id, 'ghost'],
        updatedData: { status: resolved, resolvedByUserId: 'bob', priority: { id: 'P1', name: 'High' }, assignedTo: bob },
      }),
      'Annotations updated successfully.',
    );
    let [thread] = expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, resolvedBy: 'bob' })).data as Record<string, any>[];
    assert.equal(thread!.annotationId, id);
    assert.equal(thread!.suggestion.status, 'pending', "the server owns a new suggestion's status");
    assert.deepEqual([thread!.status.id, thread!.priority.id, thread!.assignedTo.userId], ['RESOLVED', 'P1', 'bob']);
    const reopened = expectSuccess(
      await call('/v2/commentannotations/update', {
        organizationId: ORG,
        documentId: DOC,
        annotationIds: [id],
        updatedData: { status: { id: 'OPEN', name: 'Open', type: 'default' }, statusUpdatedByUserId: 'ana', resolvedByUserId: 'bob' },
        updateUsers: [{ oldUser: { userId: 'ana' }, newUser: { userId: 'ann', name: 'Ann' } }],
      }),
    );
    assert.deepEqual(reopened.data[id], { success: true, id, message: 'Annotations updated successfully' });
    assert.deepEqual(expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, resolvedBy: 'bob' })).data, []);
    [thread] = expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, annotationIds: [id] })).data as Record<string, any>[];
    assert.equal(thread!.resolvedByUserId, null);
    assert.equal(thread!.from.userId, 'ann');
    assert.equal(thread!.comments[0].from.name, 'Ann');
    assert.deepEqual(
      expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, userIds: ['ann'] })).data.map((t: any) => t.annotationId),
      [id],
    );
  });

  it("get of some authors, or of threads mentioning someone, reads the organization's threads only where the filter leads", async () => {
    const dataSource = ctx.app.dataSource;
    const pageOf = (filter: Record<string, unknown>) =>
      statementOf(dataSource, /FROM comment_annotation WHERE/, async () =>
        expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, ...filter })),
      );
    const byAuthor = await planOf(dataSource, await pageOf({ userIds: ['ann'] }));
    assert.match(byAuthor, /comment_annotation_author_idx/, byAuthor);
    // (PostgreSQL sorts the page's few rows by their place in it, after choosing them.)
    assert.doesNotMatch(byAuthor, /TEMP B-TREE|Sort Key: [^\n]*last_updated/, byAuthor);
    // The mentions are read once for the page, not again for each thread walked.
    const mentioning = await planOf(dataSource, await pageOf({ mentionedUserIds: ['bob'] }));
    assert.doesNotMatch(mentioning, /CORRELATED|(?<!hashed )SubPlan \d+\)/, mentioning);
  });

  it("get of several documents reads each document's newest threads, not the organization's, and pages them in order", async () => {
    const added: string[] = [];
    for (let i = 0; i < 6; i++) added.push(await addThread(call, {}, {}, ['doc-listed-a', 'doc-listed-b', 'doc-unlisted'][i % 3]));
    const listed = added.filter((_, i) => i % 3 !== 2);
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = expectSuccess(
        await call('/v2/commentannotations/get', {
          organizationId: ORG,
          // A document listed twice is read once.
          documentIds: ['doc-listed-a', 'doc-listed-b', 'doc-listed-a'],
          pageSize: 1,
          ...(pageToken ? { pageToken } : {}),
        }),
      );
      seen.push(...(page.data as { annotationId: string }[]).map((t) => t.annotationId));
      pageToken = page.nextPageToken as string | undefined;
    } while (pageToken);
    // Newest first (added one after another, so last updated in the order added).
    assert.deepEqual(seen, [...listed].reverse());
    const read = await statementOf(ctx.app.dataSource, /FROM comment_annotation WHERE/, async () =>
      expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, documentIds: ['doc-listed-a', 'doc-listed-b'] })),
    );
    // PostgreSQL with statistics, as a deployment has them: on none, both indexes cost it the same.
    if (ctx.app.dataSource.options.type === 'postgres') await ctx.app.dataSource.query('ANALYZE comment_annotation');
    const plan = await planOf(ctx.app.dataSource, read);
    assert.doesNotMatch(plan, /comment_annotation_updated_idx/, plan);
    assert.match(plan, /comment_annotation_document_idx/, plan);
  });

  it('get pages by lastUpdated without repeats; counts per document; delete by ids', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await addThread(call, { status: { id: i % 2 ? 'DONE' : 'OPEN', name: 'x', type: 'default' } }, {}, 'doc-pages'));
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = expectSuccess(
        await call('/v2/commentannotations/get', { organizationId: ORG, documentId: 'doc-pages', pageSize: 2, ...(pageToken ? { pageToken } : {}) }),
      );
      seen.push(...(page.data as { annotationId: string }[]).map((t) => t.annotationId));
      pageToken = page.nextPageToken as string | undefined;
    } while (pageToken);
    assert.deepEqual([...seen].sort(), [...ids].sort());
    const counts = expectSuccess(
      await call('/v2/commentannotations/count/get', { organizationId: ORG, documentIds: ['doc-pages', 'empty'], userId: 'bob', statusIds: ['OPEN'] }),
      'Comment count retrieved successfully.',
    );
    assert.deepEqual(counts.data, { 'doc-pages': { total: 3, unread: 0 }, empty: { total: 0, unread: 0 } });
    const deleted = expectSuccess(
      await call('/v2/commentannotations/delete', { organizationId: ORG, documentId: 'doc-pages', annotationIds: [ids[0], 'ghost'] }),
      'Annotations deleted successfully.',
    );
    assert.deepEqual(deleted.data, {
      [ids[0]!]: { success: true, id: ids[0], message: 'Deleted Successfully' },
      ghost: { success: false, id: 'ghost', message: 'Annotation not found.' },
    });
    expectSuccess(await call('/v2/commentannotations/delete', { documentId: 'doc-pages' }));
    assert.deepEqual(expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, documentId: 'doc-pages' })).data, []);
  });

  it('verifyUserPermissions: a thread whose author cannot see the document is refused, the others are added', async () => {
    expectSuccess(await call('/v2/users/add', { organizationId: ORG, documentId: 'doc-private', users: [{ userId: 'insider' }] }));
    const answer = await call('/v2/commentannotations/add', {
      organizationId: ORG,
      documentId: 'doc-private',
      verifyUserPermissions: true,
      commentAnnotations: [
        { annotationId: 'ok-thread', commentData: [{ commentText: 'in', from: { userId: 'insider' } }] },
        { commentData: [{ commentText: 'out', from: { userId: 'stranger' } }] },
      ],
    });
    expectError(answer, 403, 'PERMISSION_DENIED');
    const details = (answer.body as { error: { details: Record<string, any> } }).error.details;
    assert.equal(details['ok-thread'].success, true);
    assert.deepEqual(details['__velt_denied:1'], { success: false, message: 'User does not have access to the document.' });
    assert.equal(expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, documentId: 'doc-private' })).data.length, 1);
  });

  it("a document's audience reads its grants place by place through the key, not every grant of the organization", async () => {
    const dataSource = ctx.app.dataSource;
    const read = await statementOf(dataSource, /FROM access_grant/, async () =>
      expectSuccess(
        await call('/v2/commentannotations/add', {
          organizationId: ORG,
          documentId: 'doc-private',
          verifyUserPermissions: true,
          commentAnnotations: [{ commentData: [{ commentText: 'in', from: { userId: 'insider' } }] }],
        }),
      ),
    );
    const plan = await planOf(dataSource, read);
    if (dataSource.options.type === 'postgres') {
      // With a test's empty statistics either index costs the same to PostgreSQL's planner; what
      // is checked is the statement's shape: one scan per place, each free to take its index.
      assert.match(plan, /^Append/, plan);
    } else {
      assert.doesNotMatch(plan, /access_grant_user_idx/, plan);
      assert.match(plan, /resource_type=\? AND resource_id=\?/, plan);
    }
  });

  it('bad input gets the contract envelope naming the field; a missing document is NOT_FOUND unless created', async () => {
    const add = (annotation: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      call('/v2/commentannotations/add', { organizationId: ORG, documentId: DOC, commentAnnotations: [annotation], ...extra });
    expectError(await add({ commentData: [{ commentText: 'x' }] }), 400, 'INVALID_ARGUMENT', 'data.commentAnnotations[0].commentData[0].from is required');
    expectError(
      await add({ commentData: [{ from: ana }], status: { id: 'X', name: 'X', type: 'closed' } }),
      400,
      'INVALID_ARGUMENT',
      'data.commentAnnotations[0].status.type must be one of: default, ongoing, terminal',
    );
    expectError(
      await add({ annotationId: 'a:b', commentData: [{ from: ana }] }),
      400,
      'INVALID_ARGUMENT',
      'data.commentAnnotations[0].annotationId must not contain ":"',
    );
    expectError(
      await add({ commentData: [{ from: ana }], visibility: { type: 'restricted' } }),
      400,
      'INVALID_ARGUMENT',
      'data.commentAnnotations[0].visibility.userIds is required for type restricted',
    );
    expectError(await add({ commentData: [] }), 400, 'INVALID_ARGUMENT', 'data.commentAnnotations[0].commentData must contain at least 1 item(s)');
    expectError(
      await call('/v2/commentannotations/get', { organizationId: ORG, agentId: 'a', agentComments: true }),
      400,
      'INVALID_ARGUMENT',
      /Only one agent filter/,
    );
    expectError(
      await call('/v2/commentannotations/update', { organizationId: ORG, documentId: DOC }),
      400,
      'INVALID_ARGUMENT',
      'At least one of data.updatedData or data.updateUsers is required.',
    );
    expectError(await add({ commentData: [{ from: ana }] }, { documentId: 'never-made' }), 404, 'NOT_FOUND');
    expectSuccess(await add({ commentData: [{ from: ana }] }, { documentId: 'made-now', createDocument: true }));
  });

  it("agent threads: the root comment's agent makes a suggestion thread the agent filters find", async () => {
    const agent = {
      agentSource: 'external',
      agentId: 'a11y-bot',
      agentName: 'A11y',
      url: 'https://example.com/pricing',
      reason: { title: 'Contrast', description: 'Too low', severity: 'high', findingId: 'f-1' },
    };
    const result = expectSuccess(
      await call('/v2/commentannotations/add', {
        organizationId: ORG,
        documentId: 'doc-agent',
        createDocument: true,
        commentAnnotations: [{ type: 'suggestion', commentData: [{ commentText: 'fix', from: { userId: 'a11y-bot' }, agent }] }],
      }),
    );
    const [entry] = Object.values(result.data as Record<string, any>);
    assert.equal(entry.findingId, 'f-1');
    const [thread] = expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, agentId: 'a11y-bot' })).data as Record<string, any>[];
    assert.equal(thread!.sourceType, 'agent');
    assert.equal(thread!.agent, undefined);
    assert.equal(thread!.comments[0].agent.agentType, 'external');
    assert.equal(expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, agentSuggestions: true })).data.length, 1);
    expectSuccess(
      await call('/v2/commentannotations/delete', {
        organizationId: ORG,
        documentId: 'doc-agent',
        agentId: 'a11y-bot',
        agentUrls: ['https://example.com/other'],
      }),
    );
    assert.equal(expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, agentComments: true })).data.length, 1);
    expectSuccess(
      await call('/v2/commentannotations/delete', {
        organizationId: ORG,
        documentId: 'doc-agent',
        agentId: 'a11y-bot',
        agentUrls: ['https://example.com/pricing'],
      }),
    );
    assert.equal(expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, agentComments: true })).data.length, 0);
  });

  it('numbers threads per document (annotationNumber): concurrent adds never share a number; an overwrite keeps its own', async () => {
    const numberOf = async (documentId: string, annotationId: string) =>
      (
        expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, documentId, annotationIds: [annotationId] })).data[0] as {
          annotationNumber: number;
        }
      ).annotationNumber;
    const first = await addThread(call, {}, {}, 'doc-numbers');
    assert.equal(await numberOf('doc-numbers', first), 1);
    // Eight adds at once, two threads each: the numbers 2..17 are each given once.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        call('/v2/commentannotations/add', {
          organizationId: ORG,
          documentId: 'doc-numbers',
          commentAnnotations: [{ commentData: [{ commentText: 'a', from: ana }] }, { commentData: [{ commentText: 'b', from: bob }] }],
        }),
      ),
    );
    const ids = answers.flatMap((answer) => Object.keys(expectSuccess(answer).data as Record<string, unknown>));
    const page = expectSuccess(await call('/v2/commentannotations/get', { organizationId: ORG, documentId: 'doc-numbers' })).data as {
      annotationId: string;
      annotationNumber: number;
    }[];
    assert.deepEqual(
      page
        .filter((t) => ids.includes(t.annotationId))
        .map((t) => t.annotationNumber)
        .sort((a, b) => a - b),
      Array.from({ length: 16 }, (_, i) => i + 2),
    );
    // Re-adding an existing id starts its thread again under the same number; another document counts from 1.
    expectSuccess(
      await call('/v2/commentannotations/add', {
        organizationId: ORG,
        documentId: 'doc-numbers',
        commentAnnotations: [{ annotationId: first, commentData: [{ commentText: 'again', from: ana }] }],
      }),
    );
    assert.equal(await numberOf('doc-numbers', first), 1);
    assert.equal(await numberOf('doc-numbers-2', await addThread(call, {}, {}, 'doc-numbers-2')), 1);
    assert.equal(await numberOf('doc-numbers', await addThread(call, {}, {}, 'doc-numbers')), 18);
  });

  it('agentFields: agent:, execution: and source: tokens, any of which matches; other tokens are refused', async () => {
    const agentThread = (agentId: string, executionId: string, agentSource: string) => ({
      type: 'suggestion',
      commentData: [
        {
          commentText: 'finding',
          from: { userId: agentId },
          agent: { agentSource, agentId, executionId, agentName: agentId, reason: { title: 't', description: 'd', severity: 'low' } },
        },
      ],
    });
    expectSuccess(
      await call('/v2/commentannotations/add', {
        organizationId: 'org-fields',
        documentId: 'doc-fields',
        createOrganization: true,
        createDocument: true,
        commentAnnotations: [
          { annotationId: 'by-lint', ...agentThread('lint', 'run-1', 'external') },
          { annotationId: 'by-spell', ...agentThread('spell-check', 'run-2', 'velt') },
          { annotationId: 'human', commentData: [{ commentText: 'hi', from: ana }] },
        ],
      }),
    );
    const found = async (agentFields: string[]) =>
      (expectSuccess(await call('/v2/commentannotations/get', { organizationId: 'org-fields', agentFields })).data as { annotationId: string }[])
        .map((t) => t.annotationId)
        .sort();
    assert.deepEqual(await found(['agent:lint']), ['by-lint']);
    assert.deepEqual(await found(['execution:run-2']), ['by-spell']);
    assert.deepEqual(await found(['source:velt']), ['by-spell']);
    assert.deepEqual(await found(['agent:lint', 'execution:run-2']), ['by-lint', 'by-spell']);
    assert.deepEqual(await found(['agent:nobody']), []);
    expectError(
      await call('/v2/commentannotations/get', { organizationId: 'org-fields', agentFields: ['agent:lint', 'kind:x'] }),
      400,
      'INVALID_ARGUMENT',
      'data.agentFields[1] must be agent:<agentId>, execution:<executionId> or source:<velt|external>',
    );
    expectError(
      await call('/v2/commentannotations/get', { organizationId: 'org-fields', agentFields: ['source:robot'] }),
      400,
      'INVALID_ARGUMENT',
      /^data\.agentFields\[0\] must be/,
    );
    expectError(
      await call('/v2/commentannotations/get', { organizationId: 'org-fields', agentFields: ['toString:x'] }),
      400,
      'INVALID_ARGUMENT',
      /^data\.agentFields\[0\] must be/,
    );
  });

  it('threads and notifications go with their document and with their organization (a new one of the same id starts empty)', async () => {
    const org = 'org-gone';
    const threadIn = async (documentId: string) =>
      expectSuccess(
        await call('/v2/commentannotations/add', {
          organizationId: org,
          documentId,
          createOrganization: true,
          createDocument: true,
          commentAnnotations: [{ commentData: [{ ...mentionBob, from: ana, triggerNotification: true }] }],
        }),
      );
    const threads = async (documentId: string) =>
      expectSuccess(await call('/v2/commentannotations/get', { organizationId: org, documentId })).data as { annotationNumber: number }[];
    const inbox = async () =>
      (expectSuccess(await call('/v2/notifications/get', { organizationId: org, userId: 'bob' })).data as { metadata: { documentId: string } }[])
        .map((n) => n.metadata.documentId)
        .sort();
    expectSuccess(await call('/v2/users/add', { organizationId: org, users: [ana, bob] }));
    await threadIn('kept');
    await threadIn('dropped');
    await threadIn('dropped');
    assert.deepEqual(await eventually(inbox, (ids) => ids.length === 3), ['dropped', 'dropped', 'kept']);
    expectSuccess(await call('/v2/organizations/documents/delete', { organizationId: org, documentIds: ['dropped'] }));
    assert.deepEqual(await threads('dropped'), []);
    assert.deepEqual(await inbox(), ['kept']);
    // A document made again under the same id numbers its threads from 1.
    await threadIn('dropped');
    assert.deepEqual(
      (await threads('dropped')).map((t) => t.annotationNumber),
      [1],
    );
    assert.equal((await threads('kept')).length, 1);

    expectSuccess(await call('/v2/organizations/delete', { organizationIds: [org] }));
    expectSuccess(await call('/v2/users/add', { organizationId: org, users: [ana, bob] }));
    await threadIn('other');
    assert.deepEqual(await threads('kept'), []);
    assert.deepEqual(await threads('dropped'), []);
    assert.deepEqual(await eventually(inbox, (ids) => ids.length === 1), ['other']);
    assert.deepEqual(
      (await threads('other')).map((t) => t.annotationNumber),
      [1],
    );
  });
});

describe('the activity config decides which comment events are logged, and whether records are immutable', () => {
  const keyed = withKeyedApp();
  const freshKey = async (): Promise<Call> => agentFor(keyed.app, await createKey(keyed.app));
  const logged = async (call: Call, organizationId: string) =>
    (expectSuccess(await call('/v2/activities/get', { organizationId })).data as { actionType: string }[]).map((a) => a.actionType).sort();

  it('with no config every asked-for event is logged; enabled, its comment triggers choose; disabled, none', async () => {
    const call = await freshKey();
    const place = { organizationId: 'org-ac', createOrganization: true, createDocument: true };
    const addLogged = (documentId: string) =>
      call('/v2/commentannotations/add', {
        ...place,
        documentId,
        commentAnnotations: [
          {
            annotationId: `t-${documentId}`,
            commentData: [
              { commentText: 'a', from: ana, triggerActivities: true },
              { commentText: 'b', from: bob, triggerActivities: true },
            ],
          },
        ],
      });
    expectSuccess(await addLogged('d1'));
    assert.deepEqual(await logged(call, 'org-ac'), ['comment.add', 'comment_annotation.add']);
    expectSuccess(
      await call('/v2/workspace/activityconfig/update', {
        activityServiceConfig: { isEnabled: true, immutable: false, triggers: { comment: { 'comment.add': false } } },
      }),
    );
    expectSuccess(await addLogged('d2'));
    assert.deepEqual(await logged(call, 'org-ac'), ['comment.add', 'comment_annotation.add', 'comment_annotation.add']);
    expectSuccess(await call('/v2/workspace/activityconfig/update', { activityServiceConfig: { isEnabled: false } }));
    expectSuccess(await addLogged('d3'));
    assert.equal((await logged(call, 'org-ac')).length, 3);
  });

  it("immutable: records added while it is on carry immutable: true and refuse update and delete (the contract's failure messages); an add by id still overwrites (contract 6.1); earlier records stay mutable; user-data erasure still removes them", async () => {
    const call = await freshKey();
    const org = 'org-immutable';
    const activity = (id: string, userId = 'ana') => ({ id, featureType: 'custom', actionType: 'custom', targetEntityId: 'entity', actionUser: { userId } });
    expectSuccess(await call('/v2/activities/add', { organizationId: org, documentId: 'doc', activities: [activity('before')] }));
    expectSuccess(await call('/v2/workspace/activityconfig/update', { activityServiceConfig: { isEnabled: true } }));
    expectSuccess(
      await call('/v2/activities/add', { organizationId: org, documentId: 'doc', activities: [activity('locked'), activity('gdpr', 'erased-user')] }),
    );
    const records = expectSuccess(await call('/v2/activities/get', { organizationId: org })).data as { id: string; immutable?: boolean }[];
    assert.deepEqual(Object.fromEntries(records.map((r) => [r.id, r.immutable ?? false])), { before: false, locked: true, gdpr: true });

    const updated = expectSuccess(
      await call('/v2/activities/update', {
        organizationId: org,
        activities: [
          { id: 'locked', actionIcon: 'x' },
          { id: 'before', actionIcon: 'y' },
        ],
      }),
    ).data;
    assert.deepEqual(updated, {
      locked: { success: false, id: 'locked', message: 'Failed to update activity.' },
      before: { success: true, id: 'before', message: 'Activity updated.' },
    });
    // A supplied id that exists is overwritten (idempotent retries); added while immutable, it is immutable again.
    const overwritten = expectSuccess(
      await call('/v2/activities/add', { organizationId: org, documentId: 'doc', activities: [{ ...activity('locked'), actionType: 'rewritten' }] }),
    ).data;
    assert.deepEqual(overwritten, { locked: { success: true, id: 'locked', message: 'Activity added.' } });
    const deleted = expectSuccess(
      await call('/v2/activities/delete', { organizationId: org, documentId: 'doc', activityIds: ['locked', 'before', 'ghost'] }),
    ).data;
    assert.deepEqual(deleted, {
      before: { success: true, id: 'before', message: 'Activity deleted.' },
      locked: { success: false, id: 'locked', message: 'Failed to delete activity.' },
      ghost: { success: false, id: 'ghost', message: 'Failed to delete activity.' },
    });
    // A delete by document leaves immutable records where they are.
    expectSuccess(await call('/v2/activities/delete', { organizationId: org, documentId: 'doc' }));
    const left = expectSuccess(await call('/v2/activities/get', { organizationId: org })).data as { id: string; actionType: string }[];
    assert.deepEqual(left.map((r) => [r.id, r.actionType]).sort(), [
      ['gdpr', 'custom'],
      ['locked', 'rewritten'],
    ]);

    // Erasure is the law's, not the log's: the erased user's immutable record goes.
    expectSuccess(await call('/v2/users/data/delete', { userIds: ['erased-user'] }));
    const deadline = Date.now() + 10_000;
    let ids: string[] = [];
    do {
      ids = (expectSuccess(await call('/v2/activities/get', { organizationId: org })).data as { id: string }[]).map((r) => r.id);
      if (!ids.includes('gdpr')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } while (Date.now() < deadline);
    assert.deepEqual(ids, ['locked']);
  });
});

describe('a comment with a mention: activity, webhook, e-mail and inbox (contract 6)', () => {
  const smtp = new SmtpReceiver();
  let app: TestApp;
  const { receiver } = deliverySuite(async ({ database }) => {
    await smtp.start();
    app = await startApp({
      DATABASE_URL: database.url,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Collab <notify@collab.example>',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      DELIVERY_CONCURRENCY: '4',
    });
    return async () => {
      await app.close();
      await smtp.stop();
    };
  });

  it('creates the thread, the activity, a webhook delivery, a mail and an inbox entry for the mentioned user only; another key sees none of it', async () => {
    const key = await createKey(app);
    const call = agentFor(app, key);
    expectSuccess(
      await call('/v2/workspace/webhookconfig/update', {
        useWebhookService: true,
        webhookServiceConfig: { rawNotificationUrl: receiver.url('/comments/raw') },
      }),
    );
    expectSuccess(await call('/v2/workspace/emailconfig/update', { useEmailService: true, emailServiceConfig: { type: 'default' } }));
    // ana writes, bob is mentioned (defaults: inbox ALL, email MINE), cara sees the document but wants MINE only, eve sees another document.
    expectSuccess(await call('/v2/users/add', { organizationId: ORG, users: [ana, bob, { userId: 'cara', name: 'Cara', email: 'cara@example.com' }] }));
    expectSuccess(await call('/v2/users/add', { organizationId: ORG, documentId: 'elsewhere', users: [{ userId: 'eve', email: 'eve@example.com' }] }));
    expectSuccess(await call('/v2/workspace/notificationconfig/update', { useNotificationService: true }));
    expectSuccess(await call('/v2/notifications/config/set', { organizationId: ORG, userIds: ['cara'], config: { inbox: 'MINE', email: 'MINE' } }));

    const id = await addThread(call, {}, { ...mentionBob, triggerActivities: true, triggerNotification: true });

    const activities = expectSuccess(await call('/v2/activities/get', { organizationId: ORG, documentId: DOC })).data as Record<string, any>[];
    assert.deepEqual(
      activities.map((a) => [a.actionType, a.targetEntityId, a.actionUser.userId]),
      [['comment_annotation.add', id, 'ana']],
    );
    const [hook] = await receiver.waitFor('/comments/raw');
    assert.equal(hook!.json.actionType, 'comment_annotation.add');
    const mail = await smtp.waitFor('bob@example.com');
    assert.ok(mail);
    const inbox = (userId: string) => call('/v2/notifications/get', { organizationId: ORG, userId });
    // The delivery worker writes inbox entries a moment after the answer.
    const [entry, ...more] = await eventually(
      async () => expectSuccess(await inbox('bob'), 'Notification(s) retrieved successfully.').data as Record<string, any>[],
      (entries) => entries.length > 0,
    );
    assert.equal(more.length, 0);
    assert.equal(entry!.notificationSource, 'comment');
    assert.equal(entry!.notificationSourceData.annotationId, id);
    assert.equal(entry!.displayBodyMessage, 'Hey {{bob}}, look');
    assert.deepEqual(entry!.notifyUsers, { bob: true });
    for (const userId of ['ana', 'cara', 'eve']) assert.deepEqual(expectSuccess(await inbox(userId)).data, [], `${userId} gets no inbox entry`);
    assert.deepEqual(expectSuccess(await call('/v2/commentannotations/count/get', { organizationId: ORG, documentIds: [DOC], userId: 'bob' })).data, {
      [DOC]: { total: 1, unread: 1 },
    });

    // Read state: bob reads it; his unread count drops; it stays in his inbox, in its place by timestamp.
    expectSuccess(
      await call('/v2/notifications/update', { organizationId: ORG, notifications: [{ id: entry!.id, readByUserIds: ['bob'] }] }),
      'Notification(s) updated successfully.',
    );
    assert.deepEqual(expectSuccess(await call('/v2/commentannotations/count/get', { organizationId: ORG, documentIds: [DOC], userId: 'bob' })).data, {
      [DOC]: { total: 1, unread: 0 },
    });
    assert.deepEqual(expectSuccess(await inbox('bob')).data[0].readByUserIds, ['bob']);

    // A silent add (no flags, upstream's default) makes no activity and no inbox entry: once a
    // notifying add after it reaches bob's inbox, his entries are the two notifying threads'.
    const silent = await addThread(call, {}, mentionBob);
    assert.equal(expectSuccess(await call('/v2/activities/get', { organizationId: ORG, documentId: DOC })).data.length, 1);
    const loud = await addThread(call, {}, { ...mentionBob, triggerNotification: true });
    const entries = await eventually(
      async () => expectSuccess(await inbox('bob')).data as Record<string, any>[],
      (found) => found.length >= 2,
    );
    assert.deepEqual(entries.map((n) => n.notificationSourceData.annotationId).sort(), [id, loud].sort());
    assert.ok(silent !== loud && silent !== id);

    const other = agentFor(app, await createKey(app));
    assert.deepEqual(expectSuccess(await other('/v2/commentannotations/get', { organizationId: ORG, documentId: DOC })).data, []);
    assert.deepEqual(expectSuccess(await other('/v2/commentannotations/count/get', { organizationId: ORG, documentIds: [DOC], userId: 'bob' })).data, {
      [DOC]: { total: 0, unread: 0 },
    });
    assert.deepEqual(expectSuccess(await other('/v2/notifications/get', { organizationId: ORG, userId: 'bob' })).data, []);
  });

  it('notifications add/get/update/delete: recipients by notifyUsers, notifyAll and preferences; newest first, read or not', async () => {
    const key = await createKey(app);
    const call = agentFor(app, key);
    expectSuccess(await call('/v2/users/add', { organizationId: ORG, users: [ana, bob, { userId: 'cara' }] }));
    expectSuccess(await call('/v2/workspace/notificationconfig/update', { useNotificationService: true }));
    expectSuccess(await call('/v2/notifications/config/set', { organizationId: ORG, userIds: ['cara'], config: { inbox: 'NONE' } }));
    const add = (fields: Record<string, unknown>) =>
      call('/v2/notifications/add', {
        organizationId: ORG,
        documentId: DOC,
        createDocument: true,
        actionUser: ana,
        displayHeadlineMessageTemplate: '{actionUser} pinged',
        displayBodyMessage: 'body',
        notifyUsers: [],
        ...fields,
      });
    const first = expectSuccess(
      await add({ notificationId: 'n-1', notifyUsers: [{ userId: 'outsider' }], notifyAll: false }),
      'Notification added successfully.',
    );
    assert.deepEqual(first.data, { success: true, id: 'n-1', message: 'Notification added successfully.' });
    expectSuccess(await add({ notificationId: 'n-1', notifyUsers: [bob], notifyAll: false }), 'Notification added successfully.');
    expectSuccess(await add({ notificationId: 'n-2' }));
    const all = expectSuccess(await call('/v2/notifications/get', { organizationId: ORG, documentId: DOC })).data as Record<string, any>[];
    assert.deepEqual(
      all.map((n) => [n.id, Object.keys(n.notifyUsers).sort()]),
      [
        ['n-2', ['bob']],
        ['n-1', ['outsider']],
      ],
      'n-1 kept its first recipients; notifyAll skips the actor and cara (NONE)',
    );
    expectSuccess(await add({ notificationId: 'n-3', notifyUsers: [bob], notifyAll: false }));
    expectSuccess(
      await call('/v2/notifications/update', {
        organizationId: ORG,
        userId: 'bob',
        notifications: [{ id: 'n-3', readByUserIds: ['bob'], displayBodyMessage: 'changed' }],
      }),
    );
    // Upstream orders by timestamp alone: bob's read n-3 (newer, or the same millisecond and a greater id) comes before his unread n-2.
    const bobs = expectSuccess(await call('/v2/notifications/get', { organizationId: ORG, userId: 'bob', pageSize: 1 }));
    assert.deepEqual([bobs.data[0].id, bobs.data[0].displayBodyMessage, bobs.data[0].readByUserIds], ['n-3', 'changed', ['bob']]);
    const next = expectSuccess(await call('/v2/notifications/get', { organizationId: ORG, userId: 'bob', pageSize: 1, pageToken: bobs.pageToken }));
    assert.deepEqual([next.data[0].id, next.data[0].readByUserIds], ['n-2', []]);
    assert.equal(next.pageToken, undefined);
    const updated = expectSuccess(await call('/v2/notifications/update', { organizationId: ORG, notifications: [{ id: 'ghost', displayBodyMessage: 'x' }] }));
    assert.deepEqual(updated.data, { ghost: { success: false, id: 'ghost', message: 'Failed to update notification.' } });
    const deleted = expectSuccess(
      await call('/v2/notifications/delete', { organizationId: ORG, userId: 'bob', notificationIds: ['n-2', 'ghost'] }),
      'Notification(s) deleted successfully.',
    );
    assert.deepEqual(deleted.data, {
      'n-2': { success: true, id: 'n-2', message: 'Notification deleted.' },
      ghost: { success: false, id: 'ghost', message: 'Failed to delete notification.' },
    });
    assert.deepEqual(
      expectSuccess(await call('/v2/notifications/get', { organizationId: ORG, userId: 'bob' })).data.map((n: any) => n.id),
      ['n-3'],
    );
    expectError(
      await add({ displayBodyMessage: undefined }),
      400,
      'INVALID_ARGUMENT',
      'data.displayBodyMessage is required unless data.isNotificationResolverUsed is true',
    );
    expectError(await add({ notificationId: 'bad id!' }), 400, 'INVALID_ARGUMENT', 'data.notificationId may only contain letters, digits, _ and -');
    expectError(
      await call('/v2/notifications/get', { organizationId: ORG }),
      400,
      'INVALID_ARGUMENT',
      'At least one of data.documentId or data.userId is required.',
    );
    expectError(await call('/v2/notifications/delete', { organizationId: ORG }), 400, 'INVALID_ARGUMENT');
  });
});

describe("notifications get orders as upstream does: by timestamp in `order` (default desc), a user's inbox too", () => {
  const ctx = withKeyedApp();
  const org = 'org-order';
  // id -> [timestamp, read by bob]: read and unread interleave, and three share a timestamp (ties go by id).
  const placed: Record<string, [number, boolean]> = {
    'n-a': [1000, false],
    'n-b': [3000, true],
    'n-c': [2000, false],
    'n-d': [2000, true],
    'n-e': [4000, true],
    'n-f': [2000, false],
  };
  const ascending = ['n-a', 'n-c', 'n-d', 'n-f', 'n-b', 'n-e'];

  /** Every page of notifications get, following `pageToken`; the ids read and the number of pages. */
  async function readAll(call: Call, request: Record<string, unknown>): Promise<{ entries: Record<string, any>[]; pages: number }> {
    const entries: Record<string, any>[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const page = expectSuccess(await call('/v2/notifications/get', { ...request, pageToken }), 'Notification(s) retrieved successfully.');
      entries.push(...(page.data as Record<string, any>[]));
      pageToken = page.pageToken as string | undefined;
      pages++;
    } while (pageToken && pages < 20);
    return { entries, pages };
  }

  before(async () => {
    const call: Call = (path, data) => ctx.call(path, data);
    const add = (notificationId: string, userIds: string[]) =>
      call('/v2/notifications/add', {
        organizationId: org,
        createOrganization: true,
        documentId: DOC,
        createDocument: true,
        notificationId,
        actionUser: ana,
        displayHeadlineMessageTemplate: '{actionUser} pinged',
        displayBodyMessage: notificationId,
        notifyUsers: userIds.map((userId) => ({ userId })),
        notifyAll: false,
      });
    // Added in an order that is neither the timestamps' nor the ids'.
    for (const id of ['n-e', 'n-c', 'n-a', 'n-f', 'n-b', 'n-d']) expectSuccess(await add(id, ['bob', 'cara']));
    expectSuccess(await add('n-cara', ['cara']));
    // Timestamps are the service's clock at add; the test places them, ties included, in both tables and the body.
    const { dataSource } = ctx.app;
    const p = (n: number) => (dataSource.options.type === 'postgres' ? `$${n}` : '?');
    const apiKeyId = ctx.key.apiKey;
    for (const [id, [timestamp]] of Object.entries({ ...placed, 'n-cara': [2000, false] as [number, boolean] })) {
      const [row] = await dataSource.query(`SELECT body FROM inbox_notification WHERE api_key_id = ${p(1)} AND organization_id = ${p(2)} AND id = ${p(3)}`, [
        apiKeyId,
        org,
        id,
      ]);
      const body = JSON.stringify({ ...JSON.parse(row.body), timestamp });
      await dataSource.query(
        `UPDATE inbox_notification SET timestamp = ${p(1)}, body = ${p(2)} WHERE api_key_id = ${p(3)} AND organization_id = ${p(4)} AND id = ${p(5)}`,
        [timestamp, body, apiKeyId, org, id],
      );
      await dataSource.query(
        `UPDATE inbox_recipient SET timestamp = ${p(1)} WHERE api_key_id = ${p(2)} AND organization_id = ${p(3)} AND notification_id = ${p(4)}`,
        [timestamp, apiKeyId, org, id],
      );
    }
    const read = Object.entries(placed)
      .filter(([, [, isRead]]) => isRead)
      .map(([id]) => ({ id, readByUserIds: ['bob'] }));
    expectSuccess(await call('/v2/notifications/update', { organizationId: org, notifications: read }), 'Notification(s) updated successfully.');
  });

  it("a user's read and unread entries interleave strictly by (timestamp, id), in both orders, across pages of 1 and 2", async () => {
    const call: Call = (path, data) => ctx.call(path, data);
    for (const order of [undefined, 'desc', 'asc'] as const) {
      const expected = order === 'asc' ? ascending : [...ascending].reverse();
      for (const pageSize of [1, 2, undefined]) {
        const { entries, pages } = await readAll(call, { organizationId: org, userId: 'bob', order, pageSize });
        const label = `order ${order ?? '(default)'}, pageSize ${pageSize ?? '(default)'}`;
        assert.deepEqual(
          entries.map((n) => n.id),
          expected,
          label,
        );
        assert.deepEqual(
          entries.map((n) => [n.timestamp, n.readByUserIds.includes('bob')]),
          expected.map((id) => placed[id]),
          label,
        );
        assert.equal(pages, pageSize ? Math.ceil(expected.length / pageSize) : 1, label);
      }
    }
    // Cara's inbox holds the same six and her own one, by the same order; the document's notifications too.
    const carasAsc = ['n-a', 'n-c', 'n-cara', 'n-d', 'n-f', 'n-b', 'n-e'];
    assert.deepEqual(
      (await readAll(call, { organizationId: org, userId: 'cara', order: 'asc', pageSize: 2 })).entries.map((n) => n.id),
      carasAsc,
    );
    assert.deepEqual(
      (await readAll(call, { organizationId: org, documentId: DOC, pageSize: 2 })).entries.map((n) => n.id),
      [...carasAsc].reverse(),
    );
    // Another key sees nothing of it.
    const other = agentFor(ctx.app, await createKey(ctx.app));
    for (const request of [
      { organizationId: org, userId: 'bob' },
      { organizationId: org, documentId: DOC },
    ])
      assert.deepEqual(expectSuccess(await other('/v2/notifications/get', request)).data, []);
  });

  it("a page token of the former inbox order (unread first: [read, timestamp, id]) is refused as invalid; one of today's shape opens", async () => {
    const call: Call = (path, data) => ctx.call(path, data);
    const tokens = ctx.app.app.get(PageTokens);
    const filters = { organizationId: org, userId: 'bob', order: 'desc' };
    const sealed = (cursor: unknown) => tokens.encode(ctx.key.apiKey, 'notifications/get', filters, cursor);
    for (const cursor of [[0, 2000, 'n-d'], [1, 2000, 'n-d'], ['2000', 'n-d'], [2000], 'n-d', null])
      expectError(await call('/v2/notifications/get', { ...filters, pageSize: 2, pageToken: sealed(cursor) }), 400, 'INVALID_ARGUMENT', 'Invalid page token.');
    const page = expectSuccess(await call('/v2/notifications/get', { ...filters, pageSize: 2, pageToken: sealed([2000, 'n-d']) }));
    assert.deepEqual(
      page.data.map((n: { id: string }) => n.id),
      ['n-c', 'n-a'],
    );
  });
});
