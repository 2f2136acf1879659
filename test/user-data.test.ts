import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApp } from './helpers/app.js';
import { planOf, statementOf } from './helpers/query-plan.js';
import { ERASE_TASKS } from '../src/privacy/user-erasure.js';
import { ownDatabase } from './helpers/database.js';
import { agentFor, createKey, expectError, expectSuccess, withKeyedApp, type TestKey } from './factories/workspace.js';

type Call = (path: string, data: unknown) => ReturnType<ReturnType<typeof agentFor>>;

const FETCHED = 'Data fetched successfully.';
const LISTS = [
  'comments',
  'reactions',
  'recordings',
  'notifications',
  'activities',
  'grants',
  'userGroups',
  'notificationPreferences',
  'crdtEditors',
  'judgments',
  'attachments',
] as const;
const ids = (items: { id: string }[]) => items.map((item) => item.id);

/**
 * Ana and Bob in one organization, with something of Ana's in every module: memberships (users
 * add at each scope), a permission with access fields, a group, a notification preference, a
 * CRDT editor she wrote last, and activities of every kind, some by Bob naming her.
 */
async function seed(call: Call, organizationId: string): Promise<void> {
  expectSuccess(await call('/v2/workspace/notificationconfig/update', { useNotificationService: true }));
  expectSuccess(
    await call('/v2/users/add', {
      organizationId,
      users: [
        { userId: 'ana', name: 'Ana', email: 'ana@example.com', team: 'red' },
        { userId: 'bob', name: 'Bob' },
      ],
    }),
  );
  expectSuccess(await call('/v2/organizations/folders/add', { organizationId, folders: [{ folderId: 'f' }] }));
  expectSuccess(await call('/v2/users/add', { organizationId, folderId: 'f', users: [{ userId: 'ana' }] }));
  expectSuccess(await call('/v2/users/add', { organizationId, documentId: 'doc', users: [{ userId: 'ana' }, { userId: 'bob' }] }));
  expectSuccess(
    await call('/v2/auth/permissions/add', {
      user: { userId: 'ana' },
      organizationId,
      context: { accessFields: ['team:red'] },
      permissions: { resources: [{ type: 'document', id: 'secret', organizationId, accessRole: 'viewer' }] },
    }),
  );
  expectSuccess(await call('/v2/organizations/usergroups/users/add', { organizationId, organizationUserGroupId: 'g', userIds: ['ana', 'bob'] }));
  expectSuccess(await call('/v2/notifications/config/set', { organizationId, userIds: ['ana', 'bob'], config: { email: 'NONE' } }));
  expectSuccess(await call('/v2/crdt/add', { organizationId, documentId: 'doc', editorId: 'e-ana', type: 'text', data: 'hello', userId: 'ana' }));
  expectSuccess(await call('/v2/crdt/add', { organizationId, documentId: 'doc', editorId: 'e-bob', type: 'text', data: 'hi', userId: 'bob' }));
  const ana = { userId: 'ana', name: 'Ana', email: 'ana@example.com' };
  const bob = { userId: 'bob', name: 'Bob' };
  const activity = (id: string, timestamp: number, featureType: string, actionType: string, actionUser: object, extra: object = {}) => ({
    id,
    timestamp,
    featureType,
    actionType,
    actionUser,
    ...extra,
  });
  expectSuccess(
    await call('/v2/activities/add', {
      organizationId,
      documentId: 'doc',
      activities: [
        activity('a-comment', 1, 'comment', 'comment_annotation.add', ana, { entityData: { from: ana, comments: [{ commentText: 'first', from: ana }] } }),
        // Bob mentions Ana: a record naming her.
        activity('b-mention', 2, 'comment', 'comment.add', bob, {
          entityData: { commentText: 'hey', taggedUserContacts: [{ userId: 'ana', contact: ana }, { userId: 'carl' }], involvedUserIds: ['ana', 'carl'] },
          displayMessageTemplateData: { user: bob, mentioned: ana },
        }),
        activity('a-reaction', 3, 'reaction', 'reaction.add', ana),
        activity('a-recording', 4, 'recorder', 'recorder.done', ana),
        activity('a-custom', 5, 'custom', 'task.done', ana, { targetEntityId: 't1' }),
        activity('a-approve', 6, 'comment', 'comment_annotation.approve', ana, { entityData: { reasoning: 'Looks right' } }),
        // Bob's own, and one whose text merely reads "ana": neither is about her.
        activity('b-own', 7, 'comment', 'comment.add', bob, { entityData: { commentText: 'mine' } }),
        activity('b-text', 8, 'comment', 'comment.add', bob, { entityData: { commentText: 'ana' } }),
      ],
    }),
  );
}

const dataOf = async (call: Call, organizationId: string, userId: string, pageToken?: string) => {
  const result = expectSuccess(await call('/v2/users/data/get', { organizationId, userId, ...(pageToken ? { pageToken } : {}) }), FETCHED);
  return result as { data: Record<string, any>; nextPageToken?: string };
};

/** Polls the job's status until it completes (or fails the test after 20 s). */
async function completed(call: Call, jobId: string): Promise<Record<string, any>> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    const status = expectSuccess(await call('/v2/users/data/delete/status', { jobId }), FETCHED).data;
    if (status.isDeleteCompleted) return status;
    await sleep(50);
  }
  assert.fail(`job ${jobId} did not complete`);
}

describe('user data: export and erasure (upstream GDPR operations)', () => {
  const suite = withKeyedApp();
  const call: Call = (path, data) => suite.call(path, data);
  let otherKey: TestKey;
  let other: Call;
  let counter = 0;
  const org = () => `gdpr-org-${++counter}`;

  before(async () => {
    otherKey = await createKey(suite.app);
    other = agentFor(suite.app, otherKey);
  });

  it('exports every category of the user, and nothing of another user or another key', async () => {
    const organizationId = org();
    await seed(call, organizationId);
    // The same ids under another key are another tenant's.
    expectSuccess(await other('/v2/users/add', { organizationId, users: [{ userId: 'ana', name: 'Other Ana' }] }));
    expectSuccess(
      await other('/v2/activities/add', {
        organizationId,
        documentId: 'doc',
        activities: [{ id: 'o-comment', featureType: 'comment', actionType: 'comment.add', actionUser: { userId: 'ana' } }],
      }),
    );

    const { data, nextPageToken } = await dataOf(call, organizationId, 'ana');
    assert.equal(nextPageToken, undefined);
    // Every activity record naming her is in one list (recorder ones are upstream's recordings);
    // comments, reactions and notifications hold threads, reactions and inbox entries, not records.
    assert.deepEqual(ids(data.activities), ['a-comment', 'b-mention', 'a-reaction', 'a-custom', 'a-approve']);
    assert.deepEqual(ids(data.recordings), ['a-recording']);
    for (const list of ['comments', 'reactions', 'notifications']) assert.deepEqual(data[list], [], list);
    assert.deepEqual(data.activities[0].metadata, { apiKey: suite.key.apiKey, documentId: 'doc', organizationId });
    assert.equal(data.user.userId, 'ana');
    assert.equal(data.user.email, 'ana@example.com');
    assert.equal(data.user.team, 'red', 'metadata kept with the user is exported');
    assert.deepEqual(data.accessFields, ['team:red']);
    assert.deepEqual(
      data.grants.map((g: { resourceType: string; resourceId: string; accessRole: string }) => [g.resourceType, g.resourceId, g.accessRole]),
      [
        ['document', 'doc', 'editor'],
        ['document', 'secret', 'viewer'],
        ['folder', 'f', 'editor'],
        ['organization', organizationId, 'editor'],
      ],
    );
    assert.deepEqual(
      data.userGroups.map((g: { organizationUserGroupId: string }) => g.organizationUserGroupId),
      ['g'],
    );
    assert.deepEqual(
      data.notificationPreferences.map((p: object) => ({ ...p, updatedAt: 0 })),
      [{ documentId: null, inbox: null, email: 'NONE', chat: null, updatedAt: 0 }],
    );
    assert.deepEqual(
      data.crdtEditors.map((e: object) => ({ ...e, lastUpdate: '' })),
      [{ documentId: 'doc', editorId: 'e-ana', type: 'text', lastUpdate: '' }],
    );
    assert.deepEqual(
      data.judgments.map((j: { id: string; decision: string; reviewerId: string }) => [j.id, j.decision, j.reviewerId]),
      [['a-approve', 'approved', 'ana']],
    );

    const bob = (await dataOf(call, organizationId, 'bob')).data;
    assert.deepEqual(ids(bob.activities), ['b-mention', 'b-own', 'b-text']);
    assert.deepEqual(
      bob.crdtEditors.map((e: { editorId: string }) => e.editorId),
      ['e-bob'],
    );
    assert.equal(bob.user.name, 'Bob');

    const theirs = (await dataOf(other, organizationId, 'ana')).data;
    assert.deepEqual(ids(theirs.activities), ['o-comment']);
    assert.equal(theirs.user.name, 'Other Ana');
    assert.deepEqual(
      theirs.grants.map((g: { resourceType: string }) => g.resourceType),
      ['organization'],
    );
    for (const list of ['recordings', 'userGroups', 'notificationPreferences', 'crdtEditors', 'judgments']) assert.deepEqual(theirs[list], [], list);

    const stranger = (await dataOf(call, organizationId, 'nobody')).data;
    for (const list of LISTS) assert.deepEqual(stranger[list], [], list);
    assert.equal(stranger.user, null);
  });

  it("the export reads the user's grants and groups through the user's indexes, in the pages' order", async () => {
    const organizationId = org();
    await seed(call, organizationId);
    const dataSource = suite.app.dataSource;
    const exportOf = (pattern: RegExp) =>
      statementOf(dataSource, pattern, async () => expectSuccess(await call('/v2/users/data/get', { organizationId, userId: 'ana' })));
    for (const [pattern, index] of [
      [/FROM access_grant\s+WHERE api_key_id = \S+ AND organization_id = \S+ AND user_id =/, 'access_grant_user_idx'],
      [/FROM user_group_member WHERE api_key_id = \S+ AND organization_id = \S+ AND user_id =/, 'user_group_member_user_idx'],
    ] as const) {
      const plan = await planOf(dataSource, await exportOf(pattern));
      assert.match(plan, new RegExp(index), plan);
      // Grants end their order with an expression (temporary last): only that term may be sorted.
      assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY|Sort Key: (?!.*CASE)/, plan);
    }
  });

  it('pages every list by 100, one token continuing the lists that have more', async () => {
    const organizationId = org();
    const comments = Array.from({ length: 230 }, (_, i) => ({
      id: `c-${String(i).padStart(3, '0')}`,
      timestamp: i,
      featureType: 'comment',
      actionType: 'comment.add',
      actionUser: { userId: 'ana' },
    }));
    const reactions = Array.from({ length: 3 }, (_, i) => ({
      id: `r-${i}`,
      timestamp: 1000 + i,
      featureType: 'reaction',
      actionType: 'reaction.add',
      actionUser: { userId: 'ana' },
    }));
    expectSuccess(await call('/v2/activities/add', { organizationId, documentId: 'doc', activities: [...comments, ...reactions] }));
    const resources = Array.from({ length: 105 }, (_, i) => ({ type: 'document', id: `d-${String(i).padStart(3, '0')}`, organizationId }));
    expectSuccess(await call('/v2/auth/permissions/add', { user: { userId: 'ana' }, permissions: { resources } }));

    const pages: Record<string, any>[] = [];
    let token: string | undefined;
    do {
      const page = await dataOf(call, organizationId, 'ana', token);
      pages.push(page.data);
      token = page.nextPageToken;
      assert.ok(pages.length <= 3, 'three pages hold it all');
    } while (token);
    assert.deepEqual(
      pages.map((p) => [p.activities.length, p.grants.length]),
      [
        [100, 100],
        [100, 5],
        [33, 0],
      ],
    );
    assert.deepEqual(
      pages.flatMap((p) => ids(p.activities)),
      ids([...comments, ...reactions]),
    );
    assert.deepEqual(
      pages.flatMap((p) => p.grants.map((g: { resourceId: string }) => g.resourceId)),
      resources.map((r) => r.id),
    );
    for (const page of pages) for (const list of LISTS) assert.ok(Array.isArray(page[list]), `${list} is always present`);

    const first = await dataOf(call, organizationId, 'ana');
    expectError(
      await call('/v2/users/data/get', { organizationId, userId: 'bob', pageToken: first.nextPageToken }),
      400,
      'INVALID_ARGUMENT',
      'Invalid page token.',
    );
    expectError(
      await other('/v2/users/data/get', { organizationId, userId: 'ana', pageToken: first.nextPageToken }),
      400,
      'INVALID_ARGUMENT',
      'Invalid page token.',
    );
  });

  it("pages threads, reactions and inbox entries by 100, a thread's reactions split across pages when they do not fit", async () => {
    const organizationId = org();
    const ana = { userId: 'ana', name: 'Ana' };
    const bob = { userId: 'bob', name: 'Bob' };
    const place = { organizationId, documentId: 'doc', createOrganization: true, createDocument: true };
    const threadIds = Array.from({ length: 105 }, (_, i) => `t-${String(i).padStart(3, '0')}`);
    expectSuccess(
      await call('/v2/commentannotations/add', {
        ...place,
        commentAnnotations: threadIds.map((annotationId) => ({ annotationId, commentData: [{ commentText: 'x', from: ana }] })),
      }),
    );
    // 110 reactions of hers on the first thread's comment (more than a page), then one on each of the next ten.
    const reactions: [string, string][] = [
      ...Array.from({ length: 110 }, (_, i): [string, string] => ['t-000', `icon-${String(i).padStart(3, '0')}`]),
      ...threadIds.slice(1, 11).map((annotationId): [string, string] => [annotationId, '👍']),
    ];
    for (const [annotationId, icon] of reactions)
      expectSuccess(
        await call('/v2/commentannotations/comments/reactions/add', { organizationId, documentId: 'doc', annotationId, commentId: 1, icon, from: ana }),
      );
    expectSuccess(
      await call('/v2/commentannotations/comments/reactions/add', {
        organizationId,
        documentId: 'doc',
        annotationId: 't-000',
        commentId: 1,
        icon: 'b',
        from: bob,
      }),
    );
    const notificationIds = Array.from({ length: 105 }, (_, i) => `n-${String(i).padStart(3, '0')}`);
    for (const notificationId of notificationIds)
      expectSuccess(
        await call('/v2/notifications/add', {
          ...place,
          notificationId,
          actionUser: bob,
          notifyUsers: [ana],
          notifyAll: false,
          displayHeadlineMessageTemplate: 'hi',
          displayBodyMessage: 'body',
        }),
      );

    const pages: Record<string, any>[] = [];
    let token: string | undefined;
    do {
      const page = await dataOf(call, organizationId, 'ana', token);
      pages.push(page.data);
      token = page.nextPageToken;
      assert.ok(pages.length <= 2, 'two pages hold it all');
    } while (token);
    assert.deepEqual(
      pages.map((p) => [p.comments.length, p.reactions.length, p.notifications.length]),
      [
        [100, 100, 100],
        [5, 20, 5],
      ],
    );
    assert.deepEqual(
      pages.flatMap((p) => p.comments.map((t: { annotationId: string }) => t.annotationId)),
      threadIds,
    );
    // Reactions come in thread order, each thread's in its comments' order (here, the order added).
    const exported = pages.flatMap((p) => p.reactions.map((r: any) => [r.commentAnnotationId, r.icon, r.from.userId]));
    assert.deepEqual(
      exported.map(([annotationId, icon]) => `${annotationId} ${icon}`).sort(),
      reactions.map(([annotationId, icon]) => `${annotationId} ${icon}`).sort(),
      'each of her reactions once, none of his',
    );
    assert.ok(exported.every(([, , userId]) => userId === 'ana'));
    assert.deepEqual(pages.flatMap((p) => ids(p.notifications)).sort(), notificationIds);
    const theirs = (await dataOf(other, organizationId, 'ana')).data;
    for (const list of LISTS) assert.deepEqual(theirs[list], [], `another key: ${list}`);
  });

  it('erases the user in a background job; other users and other keys keep their data', async () => {
    const organizationId = org();
    await seed(call, organizationId);
    await seed(other, organizationId);

    const started = expectSuccess(await call('/v2/users/data/delete', { userIds: ['ana'] }), 'Data deletion process has been initiated.');
    assert.match(started.data.jobId, /^job_/);
    assert.equal(started.data.tasksCount, ERASE_TASKS.length);
    const status = await completed(call, started.data.jobId);
    assert.equal(status.tasksLeft, 0);
    assert.equal(typeof status.lastTaskCompletedTime, 'number');

    const { data } = await dataOf(call, organizationId, 'ana');
    for (const list of LISTS) assert.deepEqual(data[list], [], list);
    assert.equal(data.user, null);
    assert.deepEqual(data.accessFields, []);
    const users = expectSuccess(await call('/v2/users/get', { organizationId })).data.map((u: { userId: string }) => u.userId);
    assert.deepEqual(users, ['bob']);
    assert.deepEqual(
      expectSuccess(await call('/v2/users/get', { organizationId, documentId: 'doc' })).data.map((u: { userId: string }) => u.userId),
      ['bob'],
    );
    assert.deepEqual(expectSuccess(await call('/v2/memory/judgments/query', { organizationId, reviewerId: 'ana' })).data, []);

    // Bob's records stay, without Ana in them.
    const activities = expectSuccess(await call('/v2/activities/get', { organizationId, order: 'asc' })).data;
    assert.deepEqual(ids(activities), ['b-mention', 'b-own', 'b-text']);
    const mention = activities[0];
    assert.deepEqual(mention.entityData, { commentText: 'hey', taggedUserContacts: [{ userId: 'carl' }], involvedUserIds: ['carl'] });
    assert.deepEqual(mention.displayMessageTemplateData, { user: { userId: 'bob', name: 'Bob' }, mentioned: null });
    assert.equal(activities[2].entityData.commentText, 'ana', 'text that merely reads the id is not the user');
    const editors = expectSuccess(await call('/v2/crdt/get', { organizationId, documentId: 'doc' })).data;
    assert.deepEqual(
      editors.map((e: { id: string; lastUpdatedBy: string | null; data: string }) => [e.id, e.lastUpdatedBy, e.data]),
      [
        ['e-ana', null, 'hello'],
        ['e-bob', 'bob', 'hi'],
      ],
    );

    const bob = (await dataOf(call, organizationId, 'bob')).data;
    assert.equal(bob.user.name, 'Bob');
    assert.deepEqual(
      bob.userGroups.map((g: { organizationUserGroupId: string }) => g.organizationUserGroupId),
      ['g'],
    );
    assert.equal(bob.notificationPreferences.length, 1);

    // The other key's Ana is another person.
    const theirs = (await dataOf(other, organizationId, 'ana')).data;
    assert.deepEqual(ids(theirs.activities), ['a-comment', 'b-mention', 'a-reaction', 'a-custom', 'a-approve']);
    assert.equal(theirs.user.name, 'Ana');
    assert.equal(theirs.grants.length, 4);
    assert.equal(theirs.judgments.length, 1);
  });

  it('comment threads and in-app notifications: exported when they name the user, erased as activity records are', async () => {
    const organizationId = org();
    const ana = { userId: 'ana', name: 'Ana' };
    const bob = { userId: 'bob', name: 'Bob' };
    const carl = { userId: 'carl', name: 'Carl' };
    const place = { organizationId, documentId: 'doc', createOrganization: true, createDocument: true };
    const threads = (caller: Call) =>
      caller('/v2/commentannotations/add', {
        ...place,
        commentAnnotations: [
          {
            annotationId: 't-ana',
            commentData: [
              { commentText: 'mine', from: ana },
              { commentText: 'a reply', from: bob },
            ],
          },
          {
            annotationId: 't-bob',
            assignedTo: ana,
            commentData: [
              {
                commentText: 'look',
                from: bob,
                taggedUserContacts: [
                  { userId: 'ana', contact: ana },
                  { userId: 'carl', contact: carl },
                ],
              },
              { commentText: 'on it', from: ana },
              { commentText: 'ping {{ana}}', from: carl },
            ],
          },
          {
            annotationId: 't-replied',
            commentData: [
              { commentText: 'a question', from: bob },
              { commentText: 'her answer', from: ana },
            ],
          },
          { annotationId: 't-reacted', commentData: [{ commentText: 'react to me', from: bob }] },
          { annotationId: 't-resolved', commentData: [{ commentText: 'fixed?', from: bob }] },
          { annotationId: 't-unrelated', commentData: [{ commentText: 'nothing of hers', from: bob }] },
        ],
      });
    const notify = (caller: Call, notificationId: string, actionUser: object, notifyUsers: object[], extra: object = {}) =>
      caller('/v2/notifications/add', {
        ...place,
        notificationId,
        actionUser,
        notifyUsers,
        notifyAll: false,
        displayHeadlineMessageTemplate: 'hi',
        displayBodyMessage: 'body',
        ...extra,
      });
    for (const caller of [call, other]) {
      expectSuccess(await threads(caller));
      expectSuccess(
        await caller('/v2/commentannotations/update', {
          organizationId,
          documentId: 'doc',
          annotationIds: ['t-resolved'],
          updatedData: { status: { id: 'RESOLVED', name: 'Resolved', type: 'terminal' }, resolvedByUserId: 'ana' },
        }),
      );
      for (const from of [ana, bob])
        expectSuccess(
          await caller('/v2/commentannotations/comments/reactions/add', {
            organizationId,
            documentId: 'doc',
            annotationId: 't-reacted',
            commentId: 1,
            icon: '👍',
            from,
          }),
        );
      expectSuccess(await notify(caller, 'n1-bob-to-ana-and-carl', bob, [ana, carl]));
      expectSuccess(await notify(caller, 'n2-by-ana', ana, [bob]));
      expectSuccess(await notify(caller, 'n3-naming-ana', bob, [carl], { displayHeadlineMessageTemplateData: { mentioned: ana } }));
      expectSuccess(await notify(caller, 'n4-unrelated', bob, [carl]));
      expectSuccess(await notify(caller, 'n5-to-ana-only', bob, [ana]));
    }

    const exported = (await dataOf(call, organizationId, 'ana')).data;
    assert.deepEqual(
      exported.comments.map((t: { annotationId: string }) => t.annotationId),
      ['t-ana', 't-bob', 't-reacted', 't-replied', 't-resolved'],
      'her own thread, one naming her, one she replied in, one she only reacted in, one she resolved',
    );
    assert.deepEqual(
      exported.comments[1].comments.map((c: { commentId: number }) => c.commentId),
      [1, 2, 3],
      'a thread is exported whole',
    );
    assert.deepEqual(
      exported.reactions.map((r: any) => [r.documentId, r.commentAnnotationId, r.commentId, r.icon, r.from.userId]),
      [['doc', 't-reacted', 1, '👍', 'ana']],
      "her reaction, not Bob's",
    );
    assert.deepEqual(ids(exported.notifications), ['n1-bob-to-ana-and-carl', 'n2-by-ana', 'n3-naming-ana', 'n5-to-ana-only']);
    assert.deepEqual(exported.notifications[0].notifyUsers, { ana: true }, 'who else received it is not hers');
    assert.deepEqual(exported.activities, [], 'threads and notifications are not activity records');
    const carlData = (await dataOf(call, organizationId, 'carl')).data;
    assert.deepEqual(
      carlData.comments.map((t: { annotationId: string }) => t.annotationId),
      ['t-bob'],
    );
    assert.deepEqual(carlData.reactions, []);
    // A key that holds none of it sees none of it.
    const stranger = (await dataOf(agentFor(suite.app, await createKey(suite.app)), organizationId, 'ana')).data;
    for (const list of LISTS) assert.deepEqual(stranger[list], [], list);

    const dataSource = suite.app.app.get(DataSource);
    const where = dataSource.options.type === 'postgres' ? 'api_key_id = $1 AND organization_id = $2' : 'api_key_id = ? AND organization_id = ?';
    const storedBodies = async (tables: string[]) => {
      const bodies: { body: string }[] = [];
      for (const table of tables) bodies.push(...(await dataSource.query(`SELECT body FROM ${table} WHERE ${where}`, [suite.key.apiKey, organizationId])));
      return bodies;
    };
    assert.ok(
      (await storedBodies(['comment_annotation'])).every((row) => !row.body.includes('"comments"')),
      'an annotation row keeps no copy of its comments',
    );

    await completed(call, expectSuccess(await call('/v2/users/data/delete', { userIds: ['ana'] })).data.jobId);

    const gone = (await dataOf(call, organizationId, 'ana')).data;
    for (const list of LISTS) assert.deepEqual(gone[list], [], list);
    const left = expectSuccess(await call('/v2/commentannotations/get', { organizationId, documentId: 'doc', order: 'asc' })).data as Record<string, any>[];
    const byId = Object.fromEntries(left.map((t) => [t.annotationId, t]));
    assert.deepEqual(
      Object.keys(byId).sort(),
      ['t-bob', 't-reacted', 't-replied', 't-resolved', 't-unrelated'],
      'the thread she started goes, replies included',
    );
    assert.deepEqual(
      byId['t-replied'].comments.map((c: { commentText: string }) => c.commentText),
      ['a question'],
    );
    assert.equal(byId['t-bob'].assignedTo, null);
    assert.deepEqual(
      byId['t-bob'].comments.map((c: { commentId: number }) => c.commentId),
      [1, 3],
      'her comment goes',
    );
    assert.deepEqual(byId['t-bob'].comments[0].taggedUserContacts, [{ userId: 'carl', contact: carl }]);
    assert.equal(byId['t-bob'].comments[1].commentText, 'ping @(deleted user)', "the text is its author's, but a mention of her is hers");
    // Nothing she wrote is left in a stored body either (an annotation's row keeps no copy of its comments).
    const stored = await storedBodies(['comment_annotation', 'comment']);
    assert.ok(
      stored.length > 0 && stored.every((row) => !row.body.includes('on it') && !row.body.includes('her answer') && !row.body.includes('"mine"')),
      'no stored body holds what she wrote',
    );
    assert.deepEqual([byId['t-resolved'].resolvedByUserId, byId['t-resolved'].resolvedByUser], [null, null]);
    assert.deepEqual(expectSuccess(await call('/v2/commentannotations/get', { organizationId, mentionedUserIds: ['ana'] })).data, []);
    assert.deepEqual(
      expectSuccess(await call('/v2/commentannotations/get', { organizationId, mentionedUserIds: ['carl'] })).data.map(
        (t: { annotationId: string }) => t.annotationId,
      ),
      ['t-bob'],
    );

    const notifications = expectSuccess(await call('/v2/notifications/get', { organizationId, documentId: 'doc', order: 'asc' })).data as ({
      id: string;
    } & Record<string, any>)[];
    assert.deepEqual(ids(notifications).sort(), ['n1-bob-to-ana-and-carl', 'n3-naming-ana', 'n4-unrelated'], 'hers, and one only she received, go');
    const notificationsById = Object.fromEntries(notifications.map((n) => [n.id, n]));
    assert.deepEqual(notificationsById['n1-bob-to-ana-and-carl'].notifyUsers, { carl: true });
    assert.deepEqual(notificationsById['n3-naming-ana'].displayHeadlineMessageTemplateData, { mentioned: null });

    // The other key's Ana is another person.
    const theirs = (await dataOf(other, organizationId, 'ana')).data;
    assert.equal(theirs.comments.length, 5);
    assert.equal(theirs.reactions.length, 1);
    assert.equal(theirs.notifications.length, 4);
  });

  it('restricted to organizationIds, erases there only and keeps the profile while she belongs elsewhere', async () => {
    const [here, there] = [org(), org()];
    await seed(call, here);
    await seed(call, there);
    const started = expectSuccess(
      await call('/v1/users/data/delete', { userIds: ['ana'], organizationIds: [here] }),
      'Data deletion process has been initiated.',
    );
    await completed(call, started.data.jobId);
    const gone = (await dataOf(call, here, 'ana')).data;
    for (const list of LISTS) assert.deepEqual(gone[list], [], list);
    const kept = (await dataOf(call, there, 'ana')).data;
    assert.deepEqual(ids(kept.activities), ['a-comment', 'b-mention', 'a-reaction', 'a-custom', 'a-approve']);
    assert.equal(kept.grants.length, 4);
    assert.equal(gone.user.name, 'Ana', "the profile is the key's, kept while a grant elsewhere remains");
  });

  it('concurrent jobs for the same users both complete', async () => {
    const organizationId = org();
    await seed(call, organizationId);
    const started = await Promise.all([
      call('/v2/users/data/delete', { userIds: ['ana', 'bob'] }),
      call('/v2/users/data/delete', { userIds: ['bob', 'ana'] }),
      call('/v2/users/data/get', { organizationId, userId: 'ana' }),
    ]);
    for (const response of started.slice(0, 2)) await completed(call, expectSuccess(response).data.jobId);
    for (const userId of ['ana', 'bob']) {
      const { data } = await dataOf(call, organizationId, userId);
      for (const list of LISTS) assert.deepEqual(data[list], [], `${userId} ${list}`);
    }
    assert.deepEqual(expectSuccess(await call('/v2/activities/get', { organizationId })).data, []);
  });

  it("status: NOT_FOUND for an unknown job and for another key's", async () => {
    expectError(await call('/v2/users/data/delete/status', { jobId: 'job_nope' }), 404, 'NOT_FOUND', 'Data deletion job not found.');
    const started = expectSuccess(await other('/v2/users/data/delete', { userIds: ['zed'] }));
    expectError(await call('/v2/users/data/delete/status', { jobId: started.data.jobId }), 404, 'NOT_FOUND', 'Data deletion job not found.');
    expectError(await call('/v1/users/data/delete/status', { jobId: started.data.jobId }), 404, 'NOT_FOUND', 'Data deletion job not found.');
    await completed(other, started.data.jobId);
  });

  it('refuses bad input naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['/v2/users/data/get', { userId: 'ana' }, 'data.organizationId must be a non-empty string'],
      ['/v2/users/data/get', { organizationId: 'o' }, 'data.userId must be a non-empty string'],
      ['/v2/users/data/get', { organizationId: 'o', userId: 'ana', pageToken: 5 }, 'data.pageToken must be a string'],
      ['/v2/users/data/get', { organizationId: 'o', userId: 'ana', foo: 1 }, 'Unknown field: data.foo'],
      ['/v2/users/data/get', { organizationId: 'o', userId: 'ana', pageToken: 'garbage' }, 'Invalid page token.'],
      ['/v2/users/data/delete', {}, 'data.userIds must be an array'],
      ['/v2/users/data/delete', { userIds: [] }, 'data.userIds must contain at least 1 item(s)'],
      ['/v2/users/data/delete', { userIds: ['a', 'a'] }, 'data.userIds must not contain duplicates'],
      ['/v2/users/data/delete', { userIds: Array.from({ length: 101 }, (_, i) => `u${i}`) }, 'data.userIds must contain at most 100 items'],
      ['/v2/users/data/delete', { userIds: ['a', ''] }, 'data.userIds[1] must be a non-empty string'],
      ['/v2/users/data/delete', { userIds: ['a'], organizationIds: 'o' }, 'data.organizationIds must be an array'],
      ['/v2/users/data/delete', { userIds: ['a'], organizationIds: [] }, 'data.organizationIds must contain at least 1 item(s)'],
      ['/v2/users/data/delete/status', {}, 'data.jobId must be a non-empty string'],
    ];
    for (const [path, data, message] of cases) expectError(await call(path, data), 400, 'INVALID_ARGUMENT', message);
  });

  it('v1 paths answer as the v2 operations', async () => {
    const organizationId = org();
    await seed(call, organizationId);
    const v1 = expectSuccess(await call('/v1/users/data/get', { organizationId, userId: 'ana' }), FETCHED);
    const v2 = expectSuccess(await call('/v2/users/data/get', { organizationId, userId: 'ana' }), FETCHED);
    assert.deepEqual(v1, v2);
    const started = expectSuccess(
      await call('/v1/users/data/delete', { userIds: ['ana'], organizationIds: [organizationId] }),
      'Data deletion process has been initiated.',
    );
    await completed(call, started.data.jobId);
    const status = expectSuccess(await call('/v1/users/data/delete/status', { jobId: started.data.jobId }), FETCHED);
    assert.deepEqual(status, expectSuccess(await call('/v2/users/data/delete/status', { jobId: started.data.jobId })));
    assert.deepEqual(Object.keys(status.data).sort(), ['isDeleteCompleted', 'lastTaskCompletedTime', 'tasksLeft']);
  });
});

describe('user data: a deletion job survives a restart', () => {
  it('a job stored while no worker runs completes once the service starts again', async () => {
    // A database of its own: the job must wait for this test's second start, not another suite's worker.
    const database = await ownDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-gdpr-'));
    const shared = { DATABASE_URL: database.url, DATA_DIR: dataDir, SQLITE_FILE: join(dataDir, 'svc.sqlite'), MASTER_KEY: randomBytes(32).toString('base64') };
    try {
      const first = await startApp({ ...shared, DATA_DELETION_WORKER: 'false' });
      const key = await createKey(first);
      const organizationId = 'restart-org';
      await seed(agentFor(first, key), organizationId);
      const started = expectSuccess(await agentFor(first, key)('/v2/users/data/delete', { userIds: ['ana'] }));
      await sleep(200);
      const waiting = expectSuccess(await agentFor(first, key)('/v2/users/data/delete/status', { jobId: started.data.jobId })).data;
      assert.deepEqual(waiting, { isDeleteCompleted: false, tasksLeft: ERASE_TASKS.length, lastTaskCompletedTime: null });
      await first.close();

      const second = await startApp(shared);
      try {
        const call = agentFor(second, key);
        const status = await completed(call, started.data.jobId);
        assert.equal(status.tasksLeft, 0);
        const { data } = await dataOf(call, organizationId, 'ana');
        for (const list of LISTS) assert.deepEqual(data[list], [], list);
        assert.equal((await dataOf(call, organizationId, 'bob')).data.user.name, 'Bob');
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });
});
