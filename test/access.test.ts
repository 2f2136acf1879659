import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GrantEntity } from '../src/access/entities/grant.entity.js';
import { startApp, type TestApp } from './helpers/app.js';
import { countQueries } from './helpers/query-counter.js';
import { planOf, statementOf } from './helpers/query-plan.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';

describe('access: permissions get, add, remove (contract part 5)', () => {
  let app: TestApp;
  let call: ReturnType<typeof agentFor>;
  let key: TestKey;
  const org = 'acl-org';
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

  const get = async (data: Record<string, unknown>) =>
    expectSuccess(await call('/v2/auth/permissions/get', { organizationId: org, ...data }), 'User permissions retrieved successfully.').data;

  it('resolves organization, folder and document entries per user', async () => {
    const data = await get({ userIds: ['member', 'folder-user', 'stranger'], folderIds: ['r1'], documentIds: ['secret', 'team', 'open'] });
    assert.deepEqual(data.member.organization, { [org]: { accessRole: 'viewer' } });
    assert.deepEqual(data.member.documents.open, { accessRole: 'viewer', accessType: 'public' });
    assert.deepEqual(data.member.documents.team, { accessRole: 'viewer', accessType: 'organizationPrivate' });
    assert.deepEqual(data.member.documents.secret, {
      accessType: 'restricted',
      error: 'User does not have access to this document',
      errorCode: 'permission_denied',
    });
    assert.deepEqual(data['folder-user'].folders.r1, { accessRole: 'editor', accessType: 'restricted' });
    assert.deepEqual(data['folder-user'].documents.secret, { accessRole: 'editor', accessType: 'restricted' });
    assert.deepEqual(data['folder-user'].organization, { [org]: { error: 'User does not have access to organization', errorCode: 'permission_denied' } });
    assert.equal(data.stranger.documents.team.errorCode, 'permission_denied');
    assert.deepEqual(data.stranger.documents.open, { accessRole: 'editor', accessType: 'public' });
    assert.equal('context' in data.member, false);
  });

  it('adds grants, temporary ones with expiresAt, and access context; removes them', async () => {
    const expiresAt = inFuture();
    expectSuccess(
      await call('/v2/auth/permissions/add', {
        user: { userId: 'guest' },
        organizationId: org,
        context: { accessFields: ['team:design', 'region:eu'] },
        permissions: {
          resources: [
            { type: 'document', id: 'secret', organizationId: org, accessRole: 'viewer', expiresAt },
            { type: 'folder', id: 'p', organizationId: org },
          ],
        },
      }),
      'Permissions added successfully.',
    );
    let data = await get({ userIds: ['guest'], documentIds: ['secret', 'team'] });
    assert.deepEqual(data.guest.documents.secret, { accessRole: 'viewer', accessType: 'restricted', expiresAt });
    assert.deepEqual(data.guest.documents.team, { accessRole: 'editor', accessType: 'organizationPrivate' });
    assert.deepEqual(data.guest.context, { accessFields: ['team:design', 'region:eu'] });

    expectSuccess(
      await call('/v2/auth/permissions/remove', {
        userId: 'guest',
        permissions: {
          resources: [
            { type: 'document', id: 'secret', organizationId: org },
            { type: 'folder', id: 'p', organizationId: org },
          ],
        },
      }),
      'Permissions removed successfully.',
    );
    data = await get({ userIds: ['guest'], documentIds: ['secret', 'team'] });
    assert.equal(data.guest.documents.secret.errorCode, 'permission_denied');
    assert.equal(data.guest.documents.team.errorCode, 'permission_denied', 'both grants went in one remove');
  });

  it('a temporary grant never replaces a regular one but lifts a denial', async () => {
    expectSuccess(
      await call('/v2/auth/permissions/add', {
        user: { userId: 'both' },
        permissions: { resources: [{ type: 'document', id: 'secret', organizationId: org, accessRole: 'viewer' }] },
      }),
    );
    expectSuccess(
      await call('/v2/auth/permissions/add', {
        user: { userId: 'both' },
        permissions: { resources: [{ type: 'document', id: 'secret', organizationId: org, accessRole: 'editor', expiresAt: inFuture() }] },
      }),
    );
    assert.deepEqual((await get({ userIds: ['both'], documentIds: ['secret'] })).both.documents.secret, { accessRole: 'viewer', accessType: 'restricted' });
  });

  it('users add and permissions add make the same grants', async () => {
    expectSuccess(
      await call('/v2/auth/permissions/add', { user: { userId: 'via-permissions' }, permissions: { resources: [{ type: 'organization', id: org }] } }),
    );
    const users = expectSuccess(await call('/v1/users/get', { organizationId: org, userIds: ['via-permissions'] })).data;
    assert.deepEqual(
      users.map((u: { userId: string }) => u.userId),
      ['via-permissions'],
    );
    expectSuccess(await call('/v2/users/add', { organizationId: org, documentId: 'secret', users: [{ userId: 'via-users', accessRole: 'viewer' }] }));
    assert.deepEqual((await get({ userIds: ['via-users'], documentIds: ['secret'] }))['via-users'].documents.secret, {
      accessRole: 'viewer',
      accessType: 'restricted',
    });
    expectSuccess(
      await call('/v2/auth/permissions/remove', { userId: 'via-users', permissions: { resources: [{ type: 'document', id: 'secret', organizationId: org }] } }),
    );
    const left = expectSuccess(await call('/v1/users/get', { organizationId: org, documentId: 'secret' })).data.map((u: { userId: string }) => u.userId);
    assert.ok(!left.includes('via-users'), `still listed: ${left.join(', ')}`);
  });

  it('a grant on a folder that inherits its access type reaches everything below it', async () => {
    expectSuccess(
      await call('/v2/organizations/folders/add', {
        organizationId: org,
        folders: [
          { folderId: 'r1a', parentFolderId: 'r1' },
          { folderId: 'r1ab', parentFolderId: 'r1a' },
        ],
      }),
    );
    expectSuccess(await call('/v2/organizations/documents/add', { organizationId: org, folderId: 'r1ab', documents: [{ documentId: 'deep' }] }));
    expectSuccess(
      await call('/v2/auth/permissions/add', {
        user: { userId: 'mid-user' },
        permissions: { resources: [{ type: 'folder', id: 'r1', organizationId: org, accessRole: 'viewer' }] },
      }),
    );
    const data = await get({ userIds: ['mid-user', 'outsider'], folderIds: ['r1ab'], documentIds: ['deep'] });
    assert.deepEqual(data['mid-user'].folders.r1ab, { accessRole: 'viewer', accessType: 'restricted' });
    assert.deepEqual(data['mid-user'].documents.deep, { accessRole: 'viewer', accessType: 'restricted' });
    assert.deepEqual(data.outsider.documents.deep, {
      accessType: 'restricted',
      error: 'User does not have access to this document',
      errorCode: 'permission_denied',
    });
  });

  it('users who resolve alike keep their own context, in answers and in NOT_FOUND details', async () => {
    expectSuccess(
      await call('/v2/auth/permissions/add', {
        user: { userId: 'ctx-a' },
        organizationId: org,
        context: { accessFields: ['team:a'] },
        permissions: { resources: [{ type: 'document', id: 'secret', organizationId: org }] },
      }),
    );
    expectSuccess(
      await call('/v2/auth/permissions/add', {
        user: { userId: 'ctx-b' },
        permissions: { resources: [{ type: 'document', id: 'secret', organizationId: org }] },
      }),
    );
    const data = await get({ userIds: ['ctx-a', 'ctx-b'], documentIds: ['secret'] });
    assert.deepEqual(data['ctx-a'], { organization: data['ctx-b'].organization, documents: data['ctx-b'].documents, context: { accessFields: ['team:a'] } });
    assert.deepEqual(Object.keys(data['ctx-a']), ['organization', 'documents', 'context']);
    assert.deepEqual(data['ctx-b'].documents.secret, { accessRole: 'editor', accessType: 'restricted' });
    assert.equal('context' in data['ctx-b'], false);
    const missing = await call('/v2/auth/permissions/get', { organizationId: org, userIds: ['ctx-a', 'ctx-b'], documentIds: ['secret', 'gone'] });
    expectError(missing, 404, 'NOT_FOUND', 'Folder or document does not exist');
    assert.deepEqual(missing.body.error.details['ctx-a'].context, { accessFields: ['team:a'] });
    assert.equal('context' in missing.body.error.details['ctx-b'], false);
  });

  it('denies disabled documents and organizations', async () => {
    const data = await get({ userIds: ['member'], documentIds: ['off'] });
    assert.deepEqual(data.member.documents.off, { accessType: 'public', error: 'Access to this document is disabled', errorCode: 'permission_denied' });
    expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: 'off-org' }] }));
    expectSuccess(await call('/v2/users/add', { organizationId: 'off-org', users: [{ userId: 'member' }] }));
    expectSuccess(await call('/v2/organizations/documents/add', { organizationId: 'off-org', documents: [{ documentId: 'doc' }] }));
    expectSuccess(await call('/v2/organizations/access/disablestate/update', { organizationIds: ['off-org'], disabled: true }));
    const off = expectSuccess(await call('/v2/auth/permissions/get', { organizationId: 'off-org', userIds: ['member'], documentIds: ['doc'] })).data;
    assert.equal(off.member.documents.doc.error, 'Access to this organization is disabled');
    assert.deepEqual(off.member.organization['off-org'], { error: 'Access to this organization is disabled', errorCode: 'permission_denied' });
  });

  it('answers NOT_FOUND with the whole per-user map when a resource does not exist', async () => {
    const response = await call('/v2/auth/permissions/get', { organizationId: org, userIds: ['member'], folderIds: ['nope'], documentIds: ['open', 'gone'] });
    expectError(response, 404, 'NOT_FOUND', 'Folder or document does not exist');
    const details = response.body.error.details;
    assert.deepEqual(details.member.folders.nope, { error: 'Folder does not exist', errorCode: 'does_not_exist' });
    assert.deepEqual(details.member.documents.gone, { error: 'Document does not exist', errorCode: 'does_not_exist' });
    assert.deepEqual(details.member.documents.open, { accessRole: 'viewer', accessType: 'public' });
    expectError(await call('/v2/auth/permissions/get', { organizationId: 'no-org', userIds: ['member'] }), 404, 'NOT_FOUND', 'Organization does not exist');
  });

  it('enforces the limits and validates additions', async () => {
    const ids = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    expectError(
      await call('/v2/auth/permissions/get', { organizationId: org, userIds: ids(101, 'u') }),
      400,
      'INVALID_ARGUMENT',
      'data.userIds must contain at most 100 items',
    );
    expectError(
      await call('/v2/auth/permissions/get', { organizationId: org, userIds: ['u'], folderIds: ids(60, 'f'), documentIds: ids(41, 'd') }),
      400,
      'INVALID_ARGUMENT',
      'data.folderIds and data.documentIds together must contain at most 100 items',
    );
    const add = (data: Record<string, unknown>) => call('/v2/auth/permissions/add', { user: { userId: 'x' }, ...data });
    expectError(
      await add({ permissions: { resources: [{ type: 'document', id: 'secret', organizationId: org, expiresAt: 1000 }] } }),
      400,
      'INVALID_ARGUMENT',
      'expiresAt must be in the future.',
    );
    expectError(
      await add({ permissions: { resources: [{ type: 'document', id: 'secret' }] } }),
      400,
      'INVALID_ARGUMENT',
      'data.permissions.resources[0].organizationId must be a non-empty string',
    );
    expectError(await add({ permissions: { resources: [{ type: 'folder', id: 'missing', organizationId: org }] } }), 404, 'NOT_FOUND', 'Folder not found.');
    expectError(
      await add({ context: { accessFields: ['a:b'] }, permissions: { resources: [{ type: 'organization', id: org }] } }),
      400,
      'INVALID_ARGUMENT',
      'data.organizationId is required with data.context.',
    );
    expectError(
      await add({ permissions: { resources: [{ type: 'space', id: 's' }] } }),
      400,
      'INVALID_ARGUMENT',
      'data.permissions.resources[0].type must be one of: organization, folder, document',
    );
    expectError(await add({ permissions: { resources: [] } }), 400, 'INVALID_ARGUMENT', 'data.permissions.resources must contain at least 1 item(s)');
    // Missing organizations and documents are created.
    expectSuccess(await add({ permissions: { resources: [{ type: 'document', id: 'born', organizationId: 'born-org' }] } }));
    assert.deepEqual(
      expectSuccess(await call('/v2/organizations/documents/get', { organizationId: 'born-org' })).data.map((d: { id: string }) => d.id),
      ['born'],
    );
  });

  it('another key resolves nothing of this organization', async () => {
    const other = agentFor(app, await createKey(app));
    expectError(await other('/v2/auth/permissions/get', { organizationId: org, userIds: ['member'] }), 404, 'NOT_FOUND', 'Organization does not exist');
  });

  it('grants on a deleted folder, its subfolders and their documents, and on a deleted document, go with them', async () => {
    const place = 'acl-deletes';
    expectSuccess(
      await call('/v2/organizations/folders/add', {
        organizationId: place,
        createOrganization: true,
        folders: [{ folderId: 'gone' }, { folderId: 'gone1', parentFolderId: 'gone' }, { folderId: 'kept' }],
      }),
    );
    // More documents under the folder than one DELETE of grants takes, so the removal runs in chunks.
    const inner = Array.from({ length: 520 }, (_, i) => ({ documentId: `in${i}` }));
    for (const documents of [inner.slice(0, 260), inner.slice(260)])
      expectSuccess(await call('/v2/organizations/documents/add', { organizationId: place, folderId: 'gone1', documents }));
    expectSuccess(
      await call('/v2/organizations/documents/add', { organizationId: place, folderId: 'kept', documents: [{ documentId: 'safe' }, { documentId: 'solo' }] }),
    );
    for (const documents of [inner.slice(0, 260), inner.slice(260)]) {
      const resources = documents.map((d) => ({ type: 'document', id: d.documentId, organizationId: place, accessRole: 'viewer' }));
      expectSuccess(await call('/v2/auth/permissions/add', { user: { userId: 'reader' }, permissions: { resources } }));
    }
    expectSuccess(await call('/v2/users/add', { organizationId: place, users: [{ userId: 'member' }] }));
    expectSuccess(await call('/v2/users/add', { organizationId: place, folderId: 'gone', users: [{ userId: 'folder-user' }] }));
    expectSuccess(await call('/v2/users/add', { organizationId: place, folderId: 'kept', users: [{ userId: 'kept-user' }] }));
    expectSuccess(
      await call('/v2/auth/permissions/add', {
        user: { userId: 'temp' },
        permissions: { resources: [{ type: 'folder', id: 'gone1', organizationId: place, expiresAt: inFuture() }] },
      }),
    );
    for (const documentId of ['safe', 'solo'])
      expectSuccess(await call('/v2/users/add', { organizationId: place, documentId, users: [{ userId: `${documentId}-user` }] }));
    const grants = async () =>
      (await app.dataSource.getRepository(GrantEntity).findBy({ apiKeyId: key.apiKey, organizationId: place }))
        .map((g) => `${g.resourceType}:${g.resourceId}:${g.userId}`)
        .sort();
    assert.equal((await grants()).length, 526);

    expectSuccess(await call('/v2/organizations/folders/delete', { organizationId: place, folderId: 'gone' }));
    expectSuccess(await call('/v2/organizations/documents/delete', { organizationId: place, documentIds: ['solo'] }));
    assert.deepEqual(await grants(), ['document:safe:safe-user', 'folder:kept:kept-user', `organization:${place}:member`]);

    // Places made again under the same ids start with no grants.
    expectSuccess(await call('/v2/organizations/folders/add', { organizationId: place, folders: [{ folderId: 'gone', accessType: 'restricted' }] }));
    expectSuccess(
      await call('/v2/organizations/documents/add', { organizationId: place, folderId: 'gone', documents: [{ documentId: 'in0' }, { documentId: 'solo' }] }),
    );
    const data = expectSuccess(
      await call('/v2/auth/permissions/get', { organizationId: place, userIds: ['folder-user', 'reader'], folderIds: ['gone'], documentIds: ['in0'] }),
    ).data;
    assert.equal(data['folder-user'].folders.gone.errorCode, 'permission_denied');
    assert.equal(data.reader.documents.in0.errorCode, 'permission_denied');
    assert.deepEqual(expectSuccess(await call('/v2/users/get', { organizationId: place, documentId: 'solo' })).data, []);
  });

  it('100 users × 100 resources run no more statements than 1 × 2 (at most seven)', async () => {
    const big = 'acl-big';
    const folders = Array.from({ length: 50 }, (_, i) => ({ folderId: `bf${i}`, ...(i ? { parentFolderId: `bf${i - 1}` } : {}) }));
    expectSuccess(await call('/v2/organizations/folders/add', { organizationId: big, createOrganization: true, folders }));
    for (let i = 0; i < 50; i++)
      expectSuccess(await call('/v2/organizations/documents/add', { organizationId: big, folderId: `bf${i}`, documents: [{ documentId: `bd${i}` }] }));
    const users = Array.from({ length: 100 }, (_, i) => ({ userId: `bu${i}` }));
    expectSuccess(await call('/v2/users/add', { organizationId: big, users: users.slice(0, 50) }));
    expectSuccess(await call('/v2/users/add', { organizationId: big, folderId: 'bf10', users: users.slice(50) }));
    const counter = countQueries(app.dataSource);
    const statements = async (data: Record<string, unknown>) => {
      counter.reset();
      const result = expectSuccess(await call('/v2/auth/permissions/get', { organizationId: big, ...data })).data;
      return { count: counter.queries.filter((q) => !/api_key_auth_token|FROM "?api_key"? WHERE/.test(q)).length, result };
    };
    // One user on a folder and a document deep in the tree, so every kind of read runs: the
    // document with its folder, the requested folder, the ancestors of both.
    const small = await statements({ userIds: ['bu0'], folderIds: ['bf30'], documentIds: ['bd49'] });
    const large = await statements({
      userIds: users.map((u) => u.userId),
      folderIds: folders.map((f) => f.folderId),
      documentIds: Array.from({ length: 50 }, (_, i) => `bd${i}`),
    });
    assert.ok(small.count > 0);
    assert.ok(large.count <= small.count, counter.queries.join('\n'));
    assert.ok(small.count <= 7, `${small.count} statements`);
    assert.equal(Object.keys(large.result).length, 100);
    assert.deepEqual(large.result.bu60.documents.bd20, { accessRole: 'editor', accessType: 'public' });
    assert.deepEqual(large.result.bu60.folders.bf5, { accessRole: 'editor', accessType: 'public' });
  });

  it('the folders above the requested ones are read from the index of folders that set an access type', async () => {
    const deep = 'acl-deep';
    const folders = [
      { folderId: 'top', accessType: 'restricted' },
      ...Array.from({ length: 5 }, (_, i) => ({ folderId: `mid${i}`, parentFolderId: i ? `mid${i - 1}` : 'top' })),
    ];
    expectSuccess(await call('/v2/organizations/folders/add', { organizationId: deep, createOrganization: true, folders }));
    const read = await statementOf(app.dataSource, /access_type IS NOT NULL/, async () => {
      const result = expectSuccess(await call('/v2/auth/permissions/get', { organizationId: deep, userIds: ['anyone'], folderIds: ['mid4'] })).data;
      // The restricted folder four levels up, found through that index, decides.
      assert.equal(result.anyone.folders.mid4.accessType, 'restricted');
    });
    const plan = await planOf(app.dataSource, read);
    assert.match(plan, /folder_typed_idx/, plan);
  });
});
