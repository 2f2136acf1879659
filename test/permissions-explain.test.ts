import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';

/**
 * Permissions explain: each rule of resolution (contract part 5) names itself in `grantedBy`, and
 * the entry beside it is always the one permissions get answers for the same user and resource.
 */
describe('access: permissions explain', () => {
  let app: TestApp;
  let call: ReturnType<typeof agentFor>;
  let key: TestKey;
  const org = 'explain-org';
  const inFuture = () => Math.floor(Date.now() / 1000) + 3600;

  before(async () => {
    app = await startApp();
    key = await createKey(app);
    call = agentFor(app, key);
    expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: org }] }));
    expectSuccess(
      await call('/v2/organizations/folders/add', {
        organizationId: org,
        folders: [
          { folderId: 'r', accessType: 'restricted' },
          { folderId: 'r1', parentFolderId: 'r' },
          { folderId: 'p', accessType: 'organizationPrivate' },
        ],
      }),
    );
    expectSuccess(await call('/v2/organizations/documents/add', { organizationId: org, folderId: 'r1', documents: [{ documentId: 'secret' }] }));
    expectSuccess(await call('/v2/organizations/documents/add', { organizationId: org, folderId: 'p', documents: [{ documentId: 'team' }] }));
    expectSuccess(
      await call('/v2/organizations/documents/add', { organizationId: org, documents: [{ documentId: 'open' }, { documentId: 'off', disabled: true }] }),
    );
    expectSuccess(await call('/v2/users/add', { organizationId: org, users: [{ userId: 'member', accessRole: 'viewer' }] }));
    expectSuccess(await call('/v2/users/add', { organizationId: org, folderId: 'r', users: [{ userId: 'folder-user' }] }));
  });
  after(() => app.close());

  const grant = (userId: string, resources: Record<string, unknown>[]) =>
    call('/v2/auth/permissions/add', { user: { userId }, permissions: { resources: resources.map((r) => ({ organizationId: org, ...r })) } }).then((r) =>
      expectSuccess(r, 'Permissions added successfully.'),
    );

  /**
   * Explains `userId` on a document (or folder), asserts the entry is permissions get's for the
   * same user and resource, and returns the whole answer.
   */
  const explain = async (userId: string, resource: { documentId: string } | { folderId: string }, organizationId = org) => {
    const data = expectSuccess(await call('/v2/auth/permissions/explain', { organizationId, userId, ...resource }), 'Permission explained successfully.').data;
    const [kind, id] = 'documentId' in resource ? (['documents', resource.documentId] as const) : (['folders', resource.folderId] as const);
    const got = expectSuccess(
      await call('/v2/auth/permissions/get', { organizationId, userIds: [userId], [kind === 'documents' ? 'documentIds' : 'folderIds']: [id] }),
    ).data;
    const { grantedBy, ...entry } = data;
    assert.deepEqual(entry, got[userId][kind][id], 'the entry is the one permissions get answers');
    assert.ok(grantedBy, 'grantedBy is always present');
    return data;
  };

  it('a grant on the document itself', async () => {
    await grant('doc-user', [{ type: 'document', id: 'secret', accessRole: 'viewer' }]);
    assert.deepEqual(await explain('doc-user', { documentId: 'secret' }), {
      accessRole: 'viewer',
      accessType: 'restricted',
      grantedBy: { kind: 'documentGrant', resourceId: 'secret', grant: { accessRole: 'viewer', expiresAt: null, temporary: false } },
    });
  });

  it('a grant on a folder above the document: the nearest one holding a grant', async () => {
    // folder-user is a member of `r`; the document sits in `r1`, below it.
    assert.deepEqual(await explain('folder-user', { documentId: 'secret' }), {
      accessRole: 'editor',
      accessType: 'restricted',
      grantedBy: { kind: 'folderGrant', resourceId: 'r', grant: { accessRole: 'editor', expiresAt: null, temporary: false } },
    });
    // A grant on the nearer folder wins over the one further up.
    await grant('two-folders', [
      { type: 'folder', id: 'r', accessRole: 'editor' },
      { type: 'folder', id: 'r1', accessRole: 'viewer' },
    ]);
    assert.deepEqual((await explain('two-folders', { documentId: 'secret' })).grantedBy, {
      kind: 'folderGrant',
      resourceId: 'r1',
      grant: { accessRole: 'viewer', expiresAt: null, temporary: false },
    });
  });

  it('explains folders too: their own grant or one above', async () => {
    assert.deepEqual((await explain('folder-user', { folderId: 'r' })).grantedBy.resourceId, 'r');
    assert.deepEqual(await explain('folder-user', { folderId: 'r1' }), {
      accessRole: 'editor',
      accessType: 'restricted',
      grantedBy: { kind: 'folderGrant', resourceId: 'r', grant: { accessRole: 'editor', expiresAt: null, temporary: false } },
    });
    assert.deepEqual((await explain('member', { folderId: 'p' })).grantedBy.kind, 'organizationRole');
  });

  it('user groups grant nothing: a group member holds only their own grants', async () => {
    expectSuccess(await call('/v2/users/add', { organizationId: org, users: [{ userId: 'g-granted' }, { userId: 'g-plain' }] }));
    expectSuccess(await call('/v2/organizations/usergroups/add', { organizationId: org, organizationUserGroups: [{ groupId: 'g', groupName: 'Group' }] }));
    expectSuccess(
      await call('/v2/organizations/usergroups/users/add', { organizationId: org, organizationUserGroupId: 'g', userIds: ['g-granted', 'g-plain'] }),
    );
    await grant('g-granted', [{ type: 'document', id: 'secret' }]);
    assert.equal((await explain('g-granted', { documentId: 'secret' })).grantedBy.kind, 'documentGrant');
    assert.deepEqual(await explain('g-plain', { documentId: 'secret' }), {
      accessType: 'restricted',
      error: 'User does not have access to this document',
      errorCode: 'permission_denied',
      grantedBy: { kind: 'noAccess' },
    });
  });

  it('public access: the organization role for organization users, editor for anyone else', async () => {
    assert.deepEqual(await explain('stranger', { documentId: 'open' }), {
      accessRole: 'editor',
      accessType: 'public',
      grantedBy: { kind: 'publicAccess' },
    });
    assert.deepEqual(await explain('member', { documentId: 'open' }), {
      accessRole: 'viewer',
      accessType: 'public',
      grantedBy: { kind: 'publicAccess', resourceId: org, grant: { accessRole: 'viewer', expiresAt: null, temporary: false } },
    });
  });

  it('organizationPrivate: organization users with their role', async () => {
    assert.deepEqual(await explain('member', { documentId: 'team' }), {
      accessRole: 'viewer',
      accessType: 'organizationPrivate',
      grantedBy: { kind: 'organizationRole', resourceId: org, grant: { accessRole: 'viewer', expiresAt: null, temporary: false } },
    });
    assert.deepEqual(await explain('stranger', { documentId: 'team' }), {
      accessType: 'organizationPrivate',
      error: 'User does not have access to this document',
      errorCode: 'permission_denied',
      grantedBy: { kind: 'noAccess' },
    });
  });

  it('restricted without a grant: no access, organization users included', async () => {
    assert.deepEqual(await explain('member', { documentId: 'secret' }), {
      accessType: 'restricted',
      error: 'User does not have access to this document',
      errorCode: 'permission_denied',
      grantedBy: { kind: 'noAccess' },
    });
  });

  it('a disabled document denies, its own grants included; a disabled organization denies everything', async () => {
    await grant('off-user', [{ type: 'document', id: 'off' }]);
    assert.deepEqual(await explain('off-user', { documentId: 'off' }), {
      accessType: 'public',
      error: 'Access to this document is disabled',
      errorCode: 'permission_denied',
      grantedBy: { kind: 'documentDisabled', resourceId: 'off' },
    });
    const offOrg = 'explain-off-org';
    expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: offOrg }] }));
    expectSuccess(await call('/v2/organizations/documents/add', { organizationId: offOrg, documents: [{ documentId: 'doc' }] }));
    expectSuccess(await call('/v2/users/add', { organizationId: offOrg, documentId: 'doc', users: [{ userId: 'doc-member' }] }));
    expectSuccess(await call('/v2/organizations/access/disablestate/update', { organizationIds: [offOrg], disabled: true }));
    assert.deepEqual(await explain('doc-member', { documentId: 'doc' }, offOrg), {
      accessType: 'public',
      error: 'Access to this organization is disabled',
      errorCode: 'permission_denied',
      grantedBy: { kind: 'organizationDisabled', resourceId: offOrg },
    });
  });

  it('a temporary grant, with its expiresAt; a regular grant at the same place comes first', async () => {
    const expiresAt = inFuture();
    await grant('temp-user', [{ type: 'document', id: 'secret', accessRole: 'editor', expiresAt }]);
    assert.deepEqual(await explain('temp-user', { documentId: 'secret' }), {
      accessRole: 'editor',
      accessType: 'restricted',
      expiresAt,
      grantedBy: { kind: 'documentGrant', resourceId: 'secret', grant: { accessRole: 'editor', expiresAt, temporary: true } },
    });
    await grant('temp-user', [{ type: 'document', id: 'secret', accessRole: 'viewer' }]);
    assert.deepEqual(await explain('temp-user', { documentId: 'secret' }), {
      accessRole: 'viewer',
      accessType: 'restricted',
      grantedBy: { kind: 'documentGrant', resourceId: 'secret', grant: { accessRole: 'viewer', expiresAt: null, temporary: false } },
    });
    // A temporary organization membership gives the role, and is named with its expiry.
    await grant('temp-member', [{ type: 'organization', id: org, accessRole: 'viewer', expiresAt }]);
    assert.deepEqual(await explain('temp-member', { documentId: 'team' }), {
      accessRole: 'viewer',
      accessType: 'organizationPrivate',
      grantedBy: { kind: 'organizationRole', resourceId: org, grant: { accessRole: 'viewer', expiresAt, temporary: true } },
    });
  });

  it('unknown ids: the NOT_FOUND permissions get answers; an unknown user resolves as get resolves them', async () => {
    const missingOrg = await call('/v2/auth/permissions/explain', { organizationId: 'no-org', userId: 'member', documentId: 'open' });
    expectError(missingOrg, 404, 'NOT_FOUND', 'Organization does not exist');
    const getMissingOrg = await call('/v2/auth/permissions/get', { organizationId: 'no-org', userIds: ['member'], documentIds: ['open'] });
    assert.deepEqual(missingOrg.body.error, getMissingOrg.body.error);

    const missingDocument = await call('/v2/auth/permissions/explain', { organizationId: org, userId: 'member', documentId: 'gone' });
    expectError(missingDocument, 404, 'NOT_FOUND', 'Folder or document does not exist');
    const getMissingDocument = await call('/v2/auth/permissions/get', { organizationId: org, userIds: ['member'], documentIds: ['gone'] });
    assert.deepEqual(missingDocument.body.error, getMissingDocument.body.error);
    assert.deepEqual(missingDocument.body.error.details.member.documents.gone, { error: 'Document does not exist', errorCode: 'does_not_exist' });

    const missingFolder = await call('/v2/auth/permissions/explain', { organizationId: org, userId: 'member', folderId: 'gone' });
    expectError(missingFolder, 404, 'NOT_FOUND', 'Folder or document does not exist');
    assert.deepEqual(missingFolder.body.error.details.member.folders.gone, { error: 'Folder does not exist', errorCode: 'does_not_exist' });

    // Permissions get knows no missing users: one never seen holds no grants.
    assert.deepEqual((await explain('never-seen', { documentId: 'secret' })).grantedBy, { kind: 'noAccess' });
  });

  it('needs exactly one of documentId and folderId', async () => {
    const message = 'Exactly one of data.documentId and data.folderId is required.';
    expectError(await call('/v2/auth/permissions/explain', { organizationId: org, userId: 'member' }), 400, 'INVALID_ARGUMENT', message);
    expectError(
      await call('/v2/auth/permissions/explain', { organizationId: org, userId: 'member', documentId: 'open', folderId: 'r' }),
      400,
      'INVALID_ARGUMENT',
      message,
    );
    expectError(
      await call('/v2/auth/permissions/explain', { organizationId: org, documentId: 'open' }),
      400,
      'INVALID_ARGUMENT',
      'data.userId must be a non-empty string',
    );
  });

  it("another API key cannot explain the first key's data", async () => {
    const other = agentFor(app, await createKey(app));
    expectError(
      await other('/v2/auth/permissions/explain', { organizationId: org, userId: 'doc-user', documentId: 'secret' }),
      404,
      'NOT_FOUND',
      'Organization does not exist',
    );
    // Its own organization and document of the same ids know nothing of the first key's grants.
    expectSuccess(await other('/v2/organizations/documents/add', { organizationId: org, createOrganization: true, documents: [{ documentId: 'secret' }] }));
    const data = expectSuccess(await other('/v2/auth/permissions/explain', { organizationId: org, userId: 'doc-user', documentId: 'secret' })).data;
    assert.deepEqual(data, { accessRole: 'editor', accessType: 'public', grantedBy: { kind: 'publicAccess' } });
  });
});
