import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectSuccess, withKeyedApp } from './factories/workspace.js';

/**
 * Upstream's `/v1` paths of operations served under `/v2` (issue 18, C3): a client written
 * against the v1 reference drives the directory end to end, and reads the same as through v2.
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

  it('has no v1 folder delete, as upstream has none', async () => {
    const response = await keyed.call('/v1/organizations/folders/delete', { organizationId, folderId: 'f1' });
    assert.equal(response.status, 404);
  });
});
