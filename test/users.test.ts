import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GrantEntity } from '../src/access/entities/grant.entity.js';
import { DirectoryUserEntity } from '../src/directory/entities/directory-user.entity.js';
import { agentFor, createKey, expectError, expectSuccess, withKeyedApp } from './factories/workspace.js';

describe('directory: users and user groups (rest-interface part 4, contract part 4)', () => {
  const suite = withKeyedApp();
  const call = (path: string, data: unknown) => suite.call(path, data);

  let counter = 0;
  const org = () => `users-org-${++counter}`;
  const ids = (result: Record<string, any>) => result.data.map((u: { userId: string }) => u.userId);
  const ann = { userId: 'ann', name: 'ann lee', email: 'ann@example.com' };
  const bob = { userId: 'bob', email: 'bob@example.com' };

  it('rule 1 and 4: organizationId only adds organization users, creating the organization', async () => {
    const organizationId = org();
    const added = expectSuccess(await call('/v1/users/add', { organizationId, users: [ann, bob] }), 'User(s) processed successfully.');
    assert.deepEqual(added.data.ann, { success: true, id: 'ann', message: 'User added.' });
    assert.equal(expectSuccess(await call('/v2/organizations/get', { organizationIds: [organizationId] })).data.length, 1);
    const users = expectSuccess(await call('/v1/users/get', { organizationId }), 'User(s) retrieved successfully.');
    assert.deepEqual(users.data, [
      { userId: 'ann', name: 'ann lee', email: 'ann@example.com' },
      { userId: 'bob', name: null, email: 'bob@example.com' },
    ]);
    const stored = await suite.app.dataSource.getRepository(DirectoryUserEntity).findBy({ apiKeyId: suite.key.apiKey });
    assert.equal(stored.find((u) => u.id === 'ann')?.initial, 'A', 'initial from the name');
    assert.equal(stored.find((u) => u.id === 'bob')?.initial, 'B', 'initial from the e-mail without a name');
    const grants = await suite.app.dataSource.getRepository(GrantEntity).findBy({ apiKeyId: suite.key.apiKey, organizationId });
    assert.deepEqual(grants.map((g) => [g.resourceType, g.resourceId, g.userId, g.accessRole]).sort(), [
      ['organization', organizationId, 'ann', 'editor'],
      ['organization', organizationId, 'bob', 'editor'],
    ]);
  });

  it('v1 get has no paging: it answers every user, past the 1,000 of a v2 page', async () => {
    const organizationId = org();
    const everyone = Array.from({ length: 1001 }, (_, n) => ({ userId: `u${String(n).padStart(4, '0')}`, email: `u${n}@example.com` }));
    for (let start = 0; start < everyone.length; start += 500)
      expectSuccess(await call('/v2/users/add', { organizationId, users: everyone.slice(start, start + 500) }));
    const v1 = expectSuccess(await call('/v1/users/get', { organizationId }));
    assert.equal(v1.data.length, 1001);
    assert.equal(v1.nextPageToken, undefined);
    const v2 = expectSuccess(await call('/v2/users/get', { organizationId }));
    assert.equal(v2.data.length, 1000);
    assert.equal(typeof v2.nextPageToken, 'string');
  });

  it('rules 2, 3 and 5: folder and document scopes add there only; a second call adds to the organization', async () => {
    const organizationId = org();
    expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId }] }));
    expectSuccess(await call('/v2/organizations/folders/add', { organizationId, folders: [{ folderId: 'f' }] }));
    expectSuccess(await call('/v1/users/add', { organizationId, folderId: 'f', users: [ann] }));
    expectSuccess(await call('/v1/users/add', { organizationId, documentId: 'new-doc', users: [bob] }));
    assert.deepEqual(ids(expectSuccess(await call('/v1/users/get', { organizationId }))), []);
    assert.deepEqual(ids(expectSuccess(await call('/v2/users/get', { organizationId, folderId: 'f' }))), ['ann']);
    assert.deepEqual(ids(expectSuccess(await call('/v1/users/get', { organizationId, documentId: 'new-doc' }))), ['bob']);
    const documents = expectSuccess(await call('/v2/organizations/documents/get', { organizationId })).data;
    assert.deepEqual(
      documents.map((d: { id: string; folderId?: string }) => [d.id, d.folderId]),
      [['new-doc', undefined]],
      'the missing document is created at top level',
    );
    expectSuccess(await call('/v1/users/add', { organizationId, users: [ann] }));
    assert.deepEqual(ids(expectSuccess(await call('/v1/users/get', { organizationId }))), ['ann']);
    expectError(await call('/v1/users/add', { organizationId, folderId: 'missing', users: [ann] }), 404, 'NOT_FOUND', 'Folder not found.');
    expectError(
      await call('/v1/users/add', { organizationId, folderId: 'f', documentId: 'd', users: [ann] }),
      400,
      'INVALID_ARGUMENT',
      'Give either documentId or folderId, not both.',
    );
  });

  it('v2 takes accessRole (editor by default) and createOrganization: false; v1 refuses accessRole', async () => {
    const organizationId = org();
    expectError(
      await call('/v1/users/add', { organizationId, users: [{ ...ann, accessRole: 'viewer' }] }),
      400,
      'INVALID_ARGUMENT',
      'data.users[0].accessRole is only accepted by the v2 operation',
    );
    expectError(await call('/v2/users/add', { organizationId, createOrganization: false, users: [ann] }), 404, 'NOT_FOUND', 'Organization does not exist');
    expectSuccess(await call('/v2/users/add', { organizationId, users: [{ ...ann, accessRole: 'viewer' }, bob] }));
    const grants = await suite.app.dataSource.getRepository(GrantEntity).findBy({ apiKeyId: suite.key.apiKey, organizationId });
    assert.deepEqual(grants.map((g) => [g.userId, g.accessRole]).sort(), [
      ['ann', 'viewer'],
      ['bob', 'editor'],
    ]);
    expectError(
      await call('/v2/users/add', { organizationId, users: [{ ...ann, accessRole: 'owner' }] }),
      400,
      'INVALID_ARGUMENT',
      'data.users[0].accessRole must be one of: editor, viewer',
    );
  });

  it('v2 createFolder creates a missing folder (top level); without it the folder must exist', async () => {
    const organizationId = org();
    expectError(await call('/v2/users/add', { organizationId, folderId: 'new-f', users: [ann] }), 404, 'NOT_FOUND', 'Folder not found.');
    expectError(await call('/v2/users/add', { organizationId, folderId: 'new-f', createFolder: false, users: [ann] }), 404, 'NOT_FOUND', 'Folder not found.');
    assert.deepEqual(
      expectSuccess(await call('/v2/organizations/get', { organizationIds: [organizationId] })).data,
      [],
      'a refused add leaves nothing behind, not even the organization',
    );

    const added = expectSuccess(
      await call('/v2/users/add', { organizationId, folderId: 'new-f', createFolder: true, users: [ann] }),
      'User(s) processed successfully.',
    );
    assert.deepEqual(added.data.ann, { success: true, id: 'ann', message: 'User added.' });
    const folders = expectSuccess(await call('/v2/organizations/folders/get', { organizationId })).data;
    assert.deepEqual(
      folders.map((f: { folderId: string; parentFolderId: string }) => [f.folderId, f.parentFolderId]),
      [['new-f', 'root']],
    );
    assert.deepEqual(ids(expectSuccess(await call('/v2/users/get', { organizationId, folderId: 'new-f' }))), ['ann']);
    assert.deepEqual(ids(expectSuccess(await call('/v2/users/get', { organizationId }))), [], 'added to the folder only (rule 2)');

    // An existing folder is used as it is, wherever it sits.
    expectSuccess(await call('/v2/organizations/folders/add', { organizationId, folders: [{ folderId: 'child', parentFolderId: 'new-f' }] }));
    expectSuccess(await call('/v2/users/add', { organizationId, folderId: 'child', createFolder: true, users: [bob] }));
    const [child] = expectSuccess(await call('/v2/organizations/folders/get', { organizationId, folderId: 'child' })).data;
    assert.deepEqual(child.ancestors, ['root', 'new-f']);
    assert.deepEqual(ids(expectSuccess(await call('/v2/users/get', { organizationId, folderId: 'child' }))), ['bob']);

    // `root` names no folder: it is never created.
    expectError(await call('/v2/users/add', { organizationId, folderId: 'root', createFolder: true, users: [ann] }), 404, 'NOT_FOUND', 'Folder not found.');
    // With createOrganization too, the organization and then the folder are made.
    const fresh = org();
    expectSuccess(await call('/v2/users/add', { organizationId: fresh, createOrganization: true, folderId: 'f', createFolder: true, users: [ann] }));
    assert.deepEqual(ids(expectSuccess(await call('/v2/users/get', { organizationId: fresh, folderId: 'f' }))), ['ann']);
    expectError(
      await call('/v2/users/add', { organizationId: org(), createOrganization: false, folderId: 'f', createFolder: true, users: [ann] }),
      404,
      'NOT_FOUND',
      'Organization does not exist',
    );
  });

  it('v2 createDocument: a missing document is created unless createDocument: false', async () => {
    const organizationId = org();
    expectError(
      await call('/v2/users/add', { organizationId, documentId: 'd-missing', createDocument: false, users: [ann] }),
      404,
      'NOT_FOUND',
      'Document does not exist',
    );
    assert.deepEqual(expectSuccess(await call('/v2/organizations/get', { organizationIds: [organizationId] })).data, [], 'a refused add leaves nothing behind');

    expectSuccess(await call('/v2/users/add', { organizationId, documentId: 'd-made', createDocument: true, users: [ann] }));
    expectSuccess(await call('/v2/users/add', { organizationId, documentId: 'd-default', users: [bob] }));
    const documents = expectSuccess(await call('/v2/organizations/documents/get', { organizationId })).data;
    assert.deepEqual(
      documents.map((d: { id: string; folderId?: string }) => [d.id, d.folderId]).sort(),
      [
        ['d-default', undefined],
        ['d-made', undefined],
      ],
      'created at top level',
    );
    assert.deepEqual(ids(expectSuccess(await call('/v2/users/get', { organizationId, documentId: 'd-made' }))), ['ann']);

    // An existing document needs no flag either way.
    expectSuccess(await call('/v2/users/add', { organizationId, documentId: 'd-made', createDocument: false, users: [bob] }));
    assert.deepEqual(ids(expectSuccess(await call('/v2/users/get', { organizationId, documentId: 'd-made' }))), ['ann', 'bob']);
    // The flags of the other scope are ignored, as documents add ignores createFolder without a folderId.
    expectSuccess(await call('/v2/users/add', { organizationId, createFolder: true, createDocument: false, users: [ann] }));
    assert.deepEqual(ids(expectSuccess(await call('/v2/users/get', { organizationId }))), ['ann']);
  });

  it('v2 create flags must be booleans; v1 has none', async () => {
    const organizationId = org();
    for (const field of ['createOrganization', 'createFolder', 'createDocument']) {
      for (const value of ['true', 1, null, {}]) {
        expectError(
          await call('/v2/users/add', { organizationId, documentId: 'd', [field]: value, users: [ann] }),
          400,
          'INVALID_ARGUMENT',
          `data.${field} must be a boolean`,
        );
      }
      expectError(await call('/v1/users/add', { organizationId, [field]: true, users: [ann] }), 400, 'INVALID_ARGUMENT', `Unknown field: data.${field}`);
    }
  });

  it('filters by userIds and groups, and pages by user id', async () => {
    const organizationId = org();
    const users = ['u1', 'u2', 'u3', 'u4', 'u5'].map((userId) => ({ userId, name: userId }));
    expectSuccess(await call('/v2/users/add', { organizationId, users }));
    assert.deepEqual(ids(expectSuccess(await call('/v1/users/get', { organizationId, userIds: ['u2', 'u4', 'zz'] }))), ['u2', 'u4']);
    expectSuccess(await call('/v2/organizations/usergroups/add', { organizationId, organizationUserGroups: [{ groupId: 'g', groupName: 'Group' }] }));
    expectSuccess(await call('/v1/organizations/usergroups/users/add', { organizationId, organizationUserGroupId: 'g', userIds: ['u1', 'u3'] }));
    assert.deepEqual(ids(expectSuccess(await call('/v1/users/get', { organizationId, organizationUserGroupIds: ['g'] }))), ['u1', 'u3']);
    assert.deepEqual(ids(expectSuccess(await call('/v1/users/get', { organizationId, organizationUserGroupIds: ['g'], userIds: ['u3', 'u4'] }))), ['u3']);
    const seen: string[] = [];
    let nextPageToken: string | undefined;
    do {
      const page = expectSuccess(await call('/v2/users/get', { organizationId, pageSize: 2, ...(nextPageToken ? { pageToken: nextPageToken } : {}) }));
      seen.push(...ids(page));
      nextPageToken = page.nextPageToken;
    } while (nextPageToken);
    assert.deepEqual(seen, ['u1', 'u2', 'u3', 'u4', 'u5']);
    expectError(
      await call('/v1/users/get', { organizationId, userIds: Array.from({ length: 31 }, (_, i) => `x${i}`) }),
      400,
      'INVALID_ARGUMENT',
      'data.userIds must contain at most 30 items',
    );
    expectError(
      await call('/v1/users/get', { organizationId, organizationUserGroupIds: Array.from({ length: 31 }, (_, i) => `g${i}`) }),
      400,
      'INVALID_ARGUMENT',
      'data.organizationUserGroupIds must contain at most 30 items',
    );
  });

  it('updates and deletes users in their scope, per item', async () => {
    const organizationId = org();
    expectSuccess(await call('/v2/users/add', { organizationId, users: [ann, bob] }));
    const updated = expectSuccess(
      await call('/v2/users/update', { organizationId, users: [{ userId: 'ann', name: 'Ann B', accessRole: 'viewer' }, { userId: 'zed' }] }),
      'User(s) processed successfully.',
    );
    assert.deepEqual(updated.data.ann, { success: true, id: 'ann', message: 'User updated.' });
    assert.deepEqual(updated.data.zed, { success: false, id: 'zed', message: 'User does not exist.' });
    assert.equal(expectSuccess(await call('/v1/users/get', { organizationId, userIds: ['ann'] })).data[0].name, 'Ann B');
    const grant = await suite.app.dataSource.getRepository(GrantEntity).findOneByOrFail({ apiKeyId: suite.key.apiKey, organizationId, userId: 'ann' });
    assert.equal(grant.accessRole, 'viewer');
    const deleted = expectSuccess(await call('/v2/users/delete', { organizationId, userIds: ['bob', 'zed'] }), 'User(s) deleted successfully.');
    assert.deepEqual(deleted.data.bob, { success: true, id: 'bob', message: 'User removed.' });
    assert.equal(deleted.data.zed.success, false);
    assert.deepEqual(ids(expectSuccess(await call('/v1/users/get', { organizationId }))), ['ann']);
  });

  it('group membership needs an organization user; delete takes userIds or deleteAll', async () => {
    const organizationId = org();
    expectSuccess(await call('/v2/users/add', { organizationId, users: [ann, bob] }));
    expectSuccess(await call('/v2/users/add', { organizationId, documentId: 'd', users: [{ userId: 'doc-only' }] }));
    const groups = expectSuccess(
      await call('/v2/organizations/usergroups/add', { organizationId, organizationUserGroups: [{ groupId: 'eng', groupName: 'Engineering' }] }),
      'Organization User Groups added successfully.',
    );
    assert.equal(groups.data.eng.success, true);
    const added = expectSuccess(
      await call('/v2/organizations/usergroups/users/add', { organizationId, organizationUserGroupId: 'eng', userIds: ['ann', 'bob', 'doc-only'] }),
      'Added organization users to group successfully.',
    );
    assert.deepEqual(added.data.ann, { success: true, organizationUserGroupId: 'eng', message: 'User added to organization user group.' });
    assert.deepEqual(added.data['doc-only'], { success: false, organizationUserGroupId: 'eng', message: 'User is not an organization user.' });
    const removed = expectSuccess(
      await call('/v2/organizations/usergroups/users/delete', { organizationId, organizationUserGroupId: 'eng', userIds: ['ann', 'zed'] }),
      'Deleted users from group successfully.',
    );
    assert.equal(removed.data.ann.success, true);
    assert.equal(removed.data.zed.success, false);
    assert.deepEqual(ids(expectSuccess(await call('/v1/users/get', { organizationId, organizationUserGroupIds: ['eng'] }))), ['bob']);
    const all = expectSuccess(await call('/v2/organizations/usergroups/users/delete', { organizationId, organizationUserGroupId: 'eng', deleteAll: true }));
    assert.deepEqual(Object.keys(all.data), ['bob']);
    assert.deepEqual(ids(expectSuccess(await call('/v1/users/get', { organizationId, organizationUserGroupIds: ['eng'] }))), []);
    expectError(
      await call('/v2/organizations/usergroups/users/delete', { organizationId, organizationUserGroupId: 'eng' }),
      400,
      'INVALID_ARGUMENT',
      'Give either userIds or deleteAll: true.',
    );
    const missingOrg = expectSuccess(
      await call('/v2/organizations/usergroups/add', { organizationId: 'no-such-org', organizationUserGroups: [{ groupId: 'g' }] }),
    );
    assert.deepEqual(missingOrg.data.g, { success: false, id: 'g', message: 'Organization does not exist' });
    // Upstream's createOrganization: the organization is made first, then the groups.
    const created = expectSuccess(
      await call('/v2/organizations/usergroups/add', {
        organizationId: 'made-for-groups',
        createOrganization: true,
        organizationUserGroups: [{ groupId: 'g' }],
      }),
    );
    assert.equal(created.data.g.success, true);
    assert.deepEqual(
      expectSuccess(await call('/v2/organizations/get', { organizationIds: ['made-for-groups'] })).data.map((o: { id: string }) => o.id),
      ['made-for-groups'],
    );
    expectError(
      await call('/v2/organizations/usergroups/add', { organizationId: 'x', createOrganization: 'yes', organizationUserGroups: [{ groupId: 'g' }] }),
      400,
      'INVALID_ARGUMENT',
      /createOrganization/,
    );
  });

  it("allDocuments reads every document's users (not the organization's), flat or grouped by document, in pages", async () => {
    const organizationId = org();
    await call('/v2/organizations/documents/add', { organizationId, createOrganization: true, documents: [{ documentId: 'd1' }, { documentId: 'd2' }] });
    expectSuccess(await call('/v2/users/add', { organizationId, documentId: 'd1', users: [{ userId: 'ad-ann', name: 'Ann' }, { userId: 'ad-bob' }] }));
    expectSuccess(await call('/v2/users/add', { organizationId, documentId: 'd2', users: [{ userId: 'ad-bob' }] }));
    expectSuccess(await call('/v2/users/add', { organizationId, users: [{ userId: 'ad-carol' }] }));
    const flat = expectSuccess(await call('/v2/users/get', { organizationId, allDocuments: true }), 'User(s) retrieved successfully.');
    assert.deepEqual(flat.data, [
      { userId: 'ad-ann', name: 'Ann', email: null },
      { userId: 'ad-bob', name: null, email: null },
    ]);
    const grouped = expectSuccess(await call('/v2/users/get', { organizationId, allDocuments: true, groupByDocumentId: true }));
    assert.deepEqual(grouped.data, {
      d1: [
        { userId: 'ad-ann', name: 'Ann', email: null },
        { userId: 'ad-bob', name: null, email: null },
      ],
      d2: [{ userId: 'ad-bob', name: null, email: null }],
    });
    // Paged by (document, user): a page may end inside a document.
    const first = expectSuccess(await call('/v2/users/get', { organizationId, allDocuments: true, groupByDocumentId: true, pageSize: 1 }));
    assert.deepEqual(Object.keys(first.data), ['d1']);
    const pages = [first.data];
    let token = first.nextPageToken as string | undefined;
    while (token) {
      const next = expectSuccess(await call('/v2/users/get', { organizationId, allDocuments: true, groupByDocumentId: true, pageSize: 1, pageToken: token }));
      pages.push(next.data);
      token = next.nextPageToken;
    }
    assert.deepEqual(
      pages.map((page) => Object.entries(page).map(([d, users]) => `${d}:${(users as { userId: string }[]).map((u) => u.userId)}`)),
      [['d1:ad-ann'], ['d1:ad-bob'], ['d2:ad-bob']],
    );
    expectError(
      await call('/v2/users/get', { organizationId, groupByDocumentId: true }),
      400,
      'INVALID_ARGUMENT',
      'groupByDocumentId works with allDocuments: true.',
    );
    expectError(await call('/v2/users/get', { organizationId, allDocuments: true, documentId: 'd1' }), 400, 'INVALID_ARGUMENT', /allDocuments/);
    expectError(await call('/v2/users/get', { organizationId, allDocuments: true, pageToken: first.nextPageToken }), 400, 'INVALID_ARGUMENT');
  });

  it('another key sees none of these users', async () => {
    const organizationId = org();
    expectSuccess(await call('/v2/users/add', { organizationId, users: [ann] }));
    const other = agentFor(suite.app, await createKey(suite.app));
    assert.deepEqual(expectSuccess(await other('/v1/users/get', { organizationId })).data, []);
    const update = expectSuccess(await other('/v2/users/update', { organizationId, users: [{ userId: 'ann', name: 'Mallory' }] }));
    assert.equal(update.data.ann.success, false);
    assert.equal(expectSuccess(await call('/v1/users/get', { organizationId })).data[0].name, 'ann lee');
  });
});
