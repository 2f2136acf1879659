import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectError, expectSuccess, withKeyedApp } from './factories/workspace.js';

/**
 * Upstream's `/v1` paths of operations served under `/v2` (issue 18, C3; comments and
 * notifications, issue 33): a client written against the v1 reference drives the directory,
 * comment threads and notifications end to end, and reads the same as through v2.
 */
describe('the /v1 paths a migrating client calls', () => {
  const keyed = withKeyedApp();
  const v1 = async (path: string, data: unknown, message?: string) => expectSuccess(await keyed.call(`/v1${path}`, data), message);
  const v2 = async (path: string, data: unknown) => expectSuccess(await keyed.call(`/v2${path}`, data));
  const organizationId = 'v1-org';

  it('organizations, folders, documents, users, user groups and domains, through v1 alone', async () => {
    assert.equal(
      (await v1('/organizations/add', { organizations: [{ organizationId, organizationName: 'V1' }] }, 'Organization(s) added successfully.')).data[
        organizationId
      ].success,
      true,
    );
    await v1('/organizations/update', { organizations: [{ organizationId, organizationName: 'V1 renamed' }] });
    assert.deepEqual(
      (await v1('/organizations/get', { organizationIds: [organizationId] })).data,
      (await v2('/organizations/get', { organizationIds: [organizationId] })).data,
    );

    await v1('/organizations/folders/add', { organizationId, folders: [{ folderId: 'f1', folderName: 'One' }] }, 'Folder created successfully.');
    await v1('/organizations/folders/update', { organizationId, folders: [{ folderId: 'f1', folderName: 'First' }] });
    await v1('/organizations/folders/access/update', { organizationId, folderIds: ['f1'], accessType: 'restricted' });
    assert.deepEqual((await v1('/organizations/folders/get', { organizationId })).data, (await v2('/organizations/folders/get', { organizationId })).data);

    await v1(
      '/organizations/documents/add',
      { organizationId, folderId: 'f1', documents: [{ documentId: 'd1', documentName: 'Doc' }, { documentId: 'd2' }] },
      'Document(s) added successfully.',
    );
    await v1('/organizations/documents/update', { organizationId, documents: [{ documentId: 'd1', documentName: 'Doc one' }] });
    await v1('/organizations/documents/access/update', { organizationId, documentIds: ['d1'], accessType: 'public' });
    await v1('/organizations/documents/access/disablestate/update', { organizationId, documentIds: ['d2'], disabled: true });
    await v1('/organizations/documents/move', { organizationId, documentIds: ['d2'], folderId: 'root' });
    const documents = (await v1('/organizations/documents/get', { organizationId, documentIds: ['d1', 'd2'] })).data as {
      id: string;
      documentName: string | null;
      disabled: boolean;
    }[];
    assert.deepEqual(documents.map((d) => [d.id, d.documentName, d.disabled]).sort(), [
      ['d1', 'Doc one', false],
      ['d2', null, true],
    ]);
    assert.equal((await v1('/organizations/documents/delete', { organizationId, documentIds: ['d2'] })).data.d2.success, true);

    await v1('/users/add', { organizationId, users: [{ userId: 'ann', name: 'Ann' }, { userId: 'bob' }] });
    await v1('/users/update', { organizationId, users: [{ userId: 'ann', name: 'Ann B.' }] });
    await v1('/organizations/usergroups/add', { organizationId, organizationUserGroups: [{ groupId: 'eng', groupName: 'Engineering' }] });
    await v1('/organizations/usergroups/users/add', { organizationId, organizationUserGroupId: 'eng', userIds: ['ann', 'bob'] });
    await v1('/organizations/usergroups/users/delete', { organizationId, organizationUserGroupId: 'eng', userIds: ['bob'] });
    assert.deepEqual(
      (await v1('/users/get', { organizationId, organizationUserGroupIds: ['eng'] })).data.map((u: { userId: string; name: string }) => [u.userId, u.name]),
      [['ann', 'Ann B.']],
    );
    assert.equal((await v1('/users/delete', { organizationId, userIds: ['bob'] })).data.bob.success, true);

    await v1('/organizations/access/disablestate/update', { organizationIds: [organizationId], disabled: true });
    assert.equal((await v2('/organizations/get', { organizationIds: [organizationId] })).data[0].disabled, true);
    assert.deepEqual((await v1('/workspace/domains/add', { domains: ['v1.example.com'] })).data, { domainsAdded: ['v1.example.com'] });
    assert.deepEqual((await v1('/workspace/domains/delete', { domains: ['v1.example.com'] })).data, { domainsRemoved: ['v1.example.com'] });
    assert.equal((await v1('/organizations/delete', { organizationIds: [organizationId] })).data[organizationId].success, true);
  });

  it('comment threads and comments, through v1 alone, read as through v2', async () => {
    const place = { organizationId: 'v1-comments', documentId: 'v1-doc' };
    const ana = { userId: 'ana', name: 'Ana' };
    await v1('/organizations/add', { organizations: [{ organizationId: place.organizationId }] });
    await v1('/organizations/documents/add', { organizationId: place.organizationId, documents: [{ documentId: place.documentId }] });
    assert.deepEqual(
      (
        await v1(
          '/commentannotations/add',
          { ...place, commentAnnotations: [{ annotationId: 't1', location: { id: 'loc' }, commentData: [{ commentText: 'first', from: ana }] }] },
          'Comment Annotation(s) added successfully.',
        )
      ).data,
      { t1: { success: true, annotationId: 't1', commentIds: [1], message: 'Added Successfully' } },
    );
    await v1('/commentannotations/add', {
      ...place,
      commentAnnotations: [{ annotationId: 't2', commentData: [{ commentText: 'other', from: { userId: 'bob' } }] }],
    });
    assert.deepEqual(
      (
        await v1(
          '/commentannotations/comments/add',
          { ...place, annotationId: 't1', commentData: [{ commentText: 'reply', from: ana }] },
          'Comment(s) added successfully.',
        )
      ).data,
      [2],
    );
    const edit = { ...place, annotationId: 't1', commentIds: [2], updatedData: { commentText: 'edited' } };
    assert.equal((await v1('/commentannotations/comments/update', edit, 'Comment updated successfully.')).data['2'].success, true);
    const resolve = { ...place, annotationIds: ['t2'], updatedData: { status: { id: 'RESOLVED', name: 'Resolved', type: 'terminal' } } };
    assert.equal((await v1('/commentannotations/update', resolve, 'Annotations updated successfully.')).data.t2.success, true);

    // Gets answer v2's records under upstream's v1 messages, every one at once: v1 has no paging.
    const threads = await v1('/commentannotations/get', place, 'Annotations fetched successfully.');
    assert.deepEqual(threads.data, (await v2('/commentannotations/get', place)).data);
    assert.deepEqual(
      threads.data.map((t: { annotationId: string; status: { id: string } }) => [t.annotationId, t.status.id]),
      [
        ['t2', 'RESOLVED'],
        ['t1', 'OPEN'],
      ],
    );
    assert.equal('nextPageToken' in threads, false);
    assert.equal((await v2('/commentannotations/get', { ...place, pageSize: 1 })).data.length, 1);
    expectError(await keyed.call('/v1/commentannotations/get', { ...place, pageSize: 1 }), 400, 'INVALID_ARGUMENT', 'Unknown field: data.pageSize');
    expectError(await keyed.call('/v1/commentannotations/get', { organizationId: place.organizationId }), 400, 'INVALID_ARGUMENT', /data\.documentId/);
    assert.deepEqual(
      (await v1('/commentannotations/get', { ...place, annotationIds: ['t1', 'missing'] })).data.map(
        (t: { annotationId: string } | null) => t?.annotationId ?? null,
      ),
      ['t1', null],
    );
    const comments = await v1('/commentannotations/comments/get', { ...place, annotationId: 't1' }, 'Comments(s) retrieved successfully.');
    assert.deepEqual(comments.data, (await v2('/commentannotations/comments/get', { ...place, annotationId: 't1' })).data);
    assert.deepEqual(
      comments.data.map((c: { commentText: string }) => c.commentText),
      ['first', 'edited'],
    );
    const count = { organizationId: place.organizationId, documentIds: [place.documentId], userId: 'ana' };
    assert.deepEqual(
      (await v1('/commentannotations/count/get', count, 'Comment count retrieved successfully.')).data,
      (await v2('/commentannotations/count/get', count)).data,
    );

    assert.equal(
      (await v1('/commentannotations/comments/delete', { ...place, annotationId: 't1', commentIds: [2] }, 'Comments(s) deleted successfully.')).data['2']
        .success,
      true,
    );
    assert.equal((await v1('/commentannotations/delete', { ...place, annotationIds: ['t2'] }, 'Annotations deleted successfully.')).data.t2.success, true);
    assert.deepEqual(
      (await v1('/commentannotations/get', place)).data.map((t: { annotationId: string; comments: unknown[] }) => [t.annotationId, t.comments.length]),
      [['t1', 1]],
    );
  });

  it('notifications, through v1 alone, read as through v2', async () => {
    const organizationId = 'v1-comments';
    const notification = {
      organizationId,
      documentId: 'v1-doc',
      actionUser: { userId: 'ana' },
      notificationId: 'n1',
      displayHeadlineMessageTemplate: '{actionUser} pinged you',
      displayBodyMessage: 'Hello',
      notifyUsers: [{ userId: 'bob' }],
      notifyAll: false,
    };
    assert.deepEqual((await v1('/notifications/add', notification, 'Notification added successfully.')).data, {
      success: true,
      id: 'n1',
      message: 'Notification added successfully.',
    });
    const inbox = await v1('/notifications/get', { organizationId, userId: 'bob' }, 'Notification(s) retrieved successfully.');
    assert.deepEqual(inbox.data, (await v2('/notifications/get', { organizationId, userId: 'bob' })).data);
    assert.deepEqual(
      inbox.data.map((n: { id: string }) => n.id),
      ['n1'],
    );
    assert.equal('pageToken' in inbox, false);
    expectError(
      await keyed.call('/v1/notifications/get', { organizationId, userId: 'bob', pageSize: 1 }),
      400,
      'INVALID_ARGUMENT',
      'Unknown field: data.pageSize',
    );
    const read = { organizationId, notifications: [{ id: 'n1', readByUserIds: ['bob'] }] };
    assert.equal((await v1('/notifications/update', read, 'Notification(s) updated successfully.')).data.n1.success, true);
    assert.deepEqual((await v1('/notifications/get', { organizationId, documentId: 'v1-doc' })).data[0].readByUserIds, ['bob']);
    assert.equal(
      (await v1('/notifications/delete', { organizationId, notificationIds: ['n1'] }, 'Notification(s) deleted successfully.')).data.n1.success,
      true,
    );
    assert.deepEqual((await v1('/notifications/get', { organizationId, userId: 'bob' })).data, []);
  });

  it('has no v1 folder delete, as upstream has none', async () => {
    const response = await keyed.call('/v1/organizations/folders/delete', { organizationId, folderId: 'f1' });
    assert.equal(response.status, 404);
  });
});
