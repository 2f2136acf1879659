import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentFor, createKey, expectError, expectSuccess, withKeyedApp } from './factories/workspace.js';
import { planOf, statementOf } from './helpers/query-plan.js';

describe('directory: organizations, folders, documents (contract part 4)', () => {
  const suite = withKeyedApp();
  const call = (path: string, data: unknown) => suite.call(path, data);

  let orgCounter = 0;
  const newOrg = async (extra: Record<string, unknown> = {}) => {
    const organizationId = `org-${++orgCounter}`;
    expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId, organizationName: `Org ${orgCounter}`, ...extra }] }));
    return organizationId;
  };
  const addFolders = async (organizationId: string, folders: Record<string, unknown>[]) =>
    expectSuccess(await call('/v2/organizations/folders/add', { organizationId, folders }), 'Folder created successfully.').data;
  const getFolders = async (data: Record<string, unknown>) =>
    expectSuccess(await call('/v2/organizations/folders/get', data), 'Folders retrieved successfully.').data;
  const getDocuments = async (data: Record<string, unknown>) =>
    expectSuccess(await call('/v2/organizations/documents/get', data), 'Document(s) retrieved successfully.');

  describe('organizations', () => {
    it('adds (upserting), returns metadata spread with timestamps, and updates by merging', async () => {
      const added = expectSuccess(
        await call('/v2/organizations/add', { organizations: [{ organizationId: 'acme', organizationName: 'Acme', plan: 'gold', seats: 3 }] }),
        'Organization(s) added successfully.',
      );
      assert.deepEqual(added.data, { acme: { success: true, id: 'acme', message: 'Added Successfully' } });
      const [acme] = expectSuccess(await call('/v2/organizations/get', { organizationIds: ['acme'] }), 'Organization(s) retrieved successfully.').data;
      assert.equal(acme.id, 'acme');
      assert.equal(acme.organizationName, 'Acme');
      assert.equal(acme.disabled, false);
      assert.equal(acme.plan, 'gold');
      assert.equal(acme.seats, 3);
      assert.ok(acme.createdAt > 1.7e12 && acme.lastUpdated >= acme.createdAt);

      expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: 'acme', organizationName: 'Acme Inc' }] }));
      const updated = expectSuccess(
        await call('/v2/organizations/update', { organizations: [{ organizationId: 'acme', seats: 5 }, { organizationId: 'ghost' }] }),
        'Organization(s) updated successfully.',
      );
      assert.deepEqual(updated.data, {
        acme: { success: true, id: 'acme', message: 'Updated Successfully' },
        ghost: { success: false, id: 'ghost', message: 'Organization does not exist' },
      });
      const [after] = expectSuccess(await call('/v2/organizations/get', { organizationIds: ['acme', 'ghost'] })).data;
      assert.deepEqual(
        { name: after.organizationName, plan: after.plan, seats: after.seats, createdAt: after.createdAt },
        { name: 'Acme Inc', plan: 'gold', seats: 5, createdAt: acme.createdAt },
      );
    });

    it('sets the disable state per item', async () => {
      const id = await newOrg();
      const result = expectSuccess(
        await call('/v2/organizations/access/disablestate/update', { organizationIds: [id, 'nope'], disabled: true }),
        'Updated disable state for Organization(s) successfully.',
      );
      // Upstream's items and wording; `id` is the caller's id (contract part 4).
      assert.deepEqual(result.data[id], { success: true, id, message: 'Updated disable state for organization Successfully' });
      assert.deepEqual(result.data.nope, { success: false, id: 'nope', message: 'Organization does not exist' });
      assert.equal(expectSuccess(await call('/v2/organizations/get', { organizationIds: [id] })).data[0].disabled, true);
    });

    it('pages with nextPageToken and refuses a token used with other filters', async () => {
      const other = await createKey(suite.app);
      const otherCall = agentFor(suite.app, other);
      expectSuccess(await otherCall('/v2/organizations/add', { organizations: [1, 2, 3].map((i) => ({ organizationId: `p${i}` })) }));
      const first = expectSuccess(await otherCall('/v2/organizations/get', { pageSize: 2 }));
      assert.deepEqual(
        first.data.map((o: { id: string }) => o.id),
        ['p1', 'p2'],
      );
      const second = expectSuccess(await otherCall('/v2/organizations/get', { pageSize: 2, pageToken: first.nextPageToken }));
      assert.deepEqual(
        second.data.map((o: { id: string }) => o.id),
        ['p3'],
      );
      assert.equal(second.nextPageToken, undefined);
      expectError(
        await otherCall('/v2/organizations/get', { pageSize: 2, pageToken: first.nextPageToken, organizationIds: ['p1'] }),
        400,
        'INVALID_ARGUMENT',
        'Invalid page token.',
      );
      expectError(await call('/v2/organizations/get', { pageToken: first.nextPageToken }), 400, 'INVALID_ARGUMENT', 'Invalid page token.');
    });

    it('deletes an organization with everything under it', async () => {
      const id = await newOrg();
      await addFolders(id, [{ folderId: 'f1' }, { folderId: 'f2', parentFolderId: 'f1' }]);
      expectSuccess(await call('/v2/organizations/documents/add', { organizationId: id, folderId: 'f2', documents: [{ documentId: 'd1' }] }));
      const deleted = expectSuccess(await call('/v2/organizations/delete', { organizationIds: [id, 'nope'] }), 'Organization(s) deleted successfully.');
      assert.deepEqual(deleted.data, {
        [id]: { success: true, id, message: 'Deleted Successfully' },
        nope: { success: false, id: 'nope', message: 'Organization does not exist' },
      });
      assert.deepEqual(expectSuccess(await call('/v2/organizations/get', { organizationIds: [id] })).data, []);
      assert.deepEqual(await getFolders({ organizationId: id }), []);
      assert.deepEqual((await getDocuments({ organizationId: id })).data, []);
      for (const table of ['folder', 'document']) {
        const [row] = await suite.app.dataSource.query(`SELECT COUNT(*) AS n FROM ${table} WHERE organization_id = '${id}'`);
        assert.equal(Number(row.n), 0, `${table} rows left behind`);
      }
    });

    it('refuses duplicate ids in one batch, over-long filters and oversized batches', async () => {
      expectError(
        await call('/v2/organizations/add', { organizations: [{ organizationId: 'dup' }, { organizationId: 'dup' }] }),
        400,
        'INVALID_ARGUMENT',
        'data.organizations[1].organizationId repeats [0].organizationId ("dup")',
      );
      expectError(
        await call('/v2/organizations/add', { organizations: [{ organizationId: '' }] }),
        400,
        'INVALID_ARGUMENT',
        'data.organizations[0].organizationId must be a non-empty string',
      );
      expectError(
        await call('/v2/organizations/add', { organizations: [{ organizationId: 'x', organizationName: 5 }] }),
        400,
        'INVALID_ARGUMENT',
        'data.organizations[0].organizationName must be a string',
      );
      const ids = Array.from({ length: 31 }, (_, i) => `o${i}`);
      expectError(await call('/v2/organizations/get', { organizationIds: ids }), 400, 'INVALID_ARGUMENT', 'data.organizationIds must contain at most 30 items');
      const many = Array.from({ length: 501 }, (_, i) => ({ organizationId: `big${i}` }));
      expectError(await call('/v2/organizations/add', { organizations: many }), 400, 'INVALID_ARGUMENT', 'data.organizations must contain at most 500 items');
      expectError(await call('/v2/organizations/get', { pageSize: 0 }), 400, 'INVALID_ARGUMENT', 'data.pageSize must be an integer between 1 and 1000');
    });
  });

  describe('folders', () => {
    it('adds a tree in one batch and refuses root, duplicates and unknown parents per item', async () => {
      const id = await newOrg();
      const result = await addFolders(id, [
        { folderId: 'a', folderName: 'A' },
        { folderId: 'b', parentFolderId: 'a' },
        { folderId: 'c', parentFolderId: 'b' },
        { folderId: 'root' },
        { folderId: 'x', parentFolderId: 'missing' },
      ]);
      assert.deepEqual(result.a, { success: true, id: 'a', message: 'Folder added.' });
      assert.deepEqual(result.root, { success: false, id: 'root', message: 'Folder ID "root" is reserved.' });
      assert.deepEqual(result.x, { success: false, id: 'x', message: 'Parent folder does not exist.' });
      const again = await addFolders(id, [{ folderId: 'a' }]);
      assert.deepEqual(again.a, { success: false, id: 'a', message: 'Folder already exists.' });

      const flat = await getFolders({ organizationId: id });
      assert.deepEqual(flat.map((f: { folderId: string }) => f.folderId).sort(), ['a', 'b', 'c']);
      const c = flat.find((f: { folderId: string }) => f.folderId === 'c');
      assert.deepEqual(c.ancestors, ['root', 'a', 'b']);
      assert.equal(c.parentFolderId, 'b');
      assert.equal(c.organizationId, id);
      assert.equal(c.apiKey, suite.key.apiKey);
      assert.equal(c.accessType, 'public');
      assert.equal(c.inheritAccessFromParent, true);
      assert.equal('subFolders' in c, false);
      assert.equal(flat.find((f: { folderId: string }) => f.folderId === 'a').parentFolderId, 'root');
    });

    it('needs the organization unless createOrganization', async () => {
      expectError(
        await call('/v2/organizations/folders/add', { organizationId: 'no-such-org', folders: [{ folderId: 'f' }] }),
        404,
        'NOT_FOUND',
        'Organization does not exist',
      );
      const created = expectSuccess(
        await call('/v2/organizations/folders/add', { organizationId: 'made-by-folders', createOrganization: true, folders: [{ folderId: 'f' }] }),
      ).data;
      assert.equal(created.f.success, true);
      assert.equal(expectSuccess(await call('/v2/organizations/get', { organizationIds: ['made-by-folders'] })).data.length, 1);
    });

    it('nests subFolders to maxDepth from a folder or from the top', async () => {
      const id = await newOrg();
      await addFolders(id, [
        { folderId: 'a' },
        { folderId: 'a1', parentFolderId: 'a' },
        { folderId: 'a11', parentFolderId: 'a1' },
        { folderId: 'a111', parentFolderId: 'a11' },
        { folderId: 'b' },
      ]);
      const [a] = await getFolders({ organizationId: id, folderId: 'a' });
      assert.equal(a.folderId, 'a');
      assert.deepEqual(
        a.subFolders.map((f: { folderId: string }) => f.folderId),
        ['a1'],
      );
      assert.equal('subFolders' in a.subFolders[0], false, 'folders at the limit carry no subFolders');

      const [deep] = await getFolders({ organizationId: id, folderId: 'a', maxDepth: 2 });
      assert.deepEqual(
        deep.subFolders[0].subFolders.map((f: { folderId: string }) => f.folderId),
        ['a11'],
      );
      assert.equal('subFolders' in deep.subFolders[0].subFolders[0], false);

      const top = await getFolders({ organizationId: id, maxDepth: 1 });
      assert.deepEqual(
        top.map((f: { folderId: string }) => f.folderId),
        ['a', 'b'],
      );
      assert.deepEqual(top[1].subFolders, [], 'folders above the limit carry subFolders, [] when empty');
      assert.equal('subFolders' in top[0].subFolders[0], false);

      expectError(await call('/v2/organizations/folders/get', { organizationId: id, folderId: 'nope' }), 404, 'NOT_FOUND', 'Folder not found.');
      expectError(await call('/v2/organizations/folders/get', { organizationId: 'no-org', folderId: 'a' }), 404, 'NOT_FOUND', 'Folder not found.');
    });

    it('moves a subtree across depths, recomputing every ancestor list, and refuses cycles', async () => {
      const id = await newOrg();
      await addFolders(id, [
        { folderId: 'p' },
        { folderId: 'q' },
        { folderId: 'q1', parentFolderId: 'q' },
        { folderId: 'm', parentFolderId: 'p' },
        { folderId: 'm1', parentFolderId: 'm' },
        { folderId: 'm2', parentFolderId: 'm1' },
      ]);
      const moved = expectSuccess(
        await call('/v2/organizations/folders/update', { organizationId: id, folders: [{ folderId: 'm', parentFolderId: 'q1', folderName: 'Moved' }] }),
        'Folder Updated successfully.',
      ).data;
      assert.deepEqual(moved.m, { success: true, id: 'm', message: 'Folder Updated.' });
      const byId = new Map((await getFolders({ organizationId: id })).map((f: { folderId: string }) => [f.folderId, f]));
      assert.deepEqual((byId.get('m') as { ancestors: string[] }).ancestors, ['root', 'q', 'q1']);
      assert.equal((byId.get('m') as { folderName: string }).folderName, 'Moved');
      assert.deepEqual((byId.get('m2') as { ancestors: string[] }).ancestors, ['root', 'q', 'q1', 'm', 'm1']);

      const toTop = expectSuccess(
        await call('/v2/organizations/folders/update', { organizationId: id, folders: [{ folderId: 'm1', parentFolderId: 'root' }] }),
      ).data;
      assert.equal(toTop.m1.success, true);
      const [m1] = await getFolders({ organizationId: id, folderId: 'm1', maxDepth: 3 });
      assert.deepEqual(m1.ancestors, ['root']);
      assert.deepEqual(m1.subFolders[0].ancestors, ['root', 'm1']);

      const cycle = expectSuccess(
        await call('/v2/organizations/folders/update', {
          organizationId: id,
          folders: [
            { folderId: 'q', parentFolderId: 'm' },
            { folderId: 'p', parentFolderId: 'p' },
            { folderId: 'zz', folderName: 'x' },
          ],
        }),
      ).data;
      assert.equal(cycle.q.success, false);
      assert.equal(cycle.p.success, false);
      assert.deepEqual(cycle.zz, { success: false, id: 'zz', message: 'Folder does not exist.' });
      const [q] = await getFolders({ organizationId: id, folderId: 'q' });
      assert.deepEqual(q.ancestors, ['root'], 'a refused move changes nothing');
    });

    it('resolves effective access types with inheritance', async () => {
      const id = await newOrg();
      await addFolders(id, [
        { folderId: 'r', accessType: 'restricted' },
        { folderId: 'r1', parentFolderId: 'r' },
        { folderId: 'r11', parentFolderId: 'r1' },
      ]);
      let byId = new Map((await getFolders({ organizationId: id })).map((f: { folderId: string }) => [f.folderId, f])) as Map<
        string,
        { accessType: string; inheritAccessFromParent: boolean }
      >;
      assert.deepEqual([byId.get('r')!.accessType, byId.get('r')!.inheritAccessFromParent], ['restricted', false]);
      assert.deepEqual([byId.get('r11')!.accessType, byId.get('r11')!.inheritAccessFromParent], ['restricted', true]);

      const updated = expectSuccess(
        await call('/v2/organizations/folders/access/update', { organizationId: id, folderIds: ['r1', 'nope'], accessType: 'organizationPrivate' }),
        'Updated access for folders successfully.',
      ).data;
      assert.deepEqual(updated.r1, { success: true, id: 'r1', accessType: 'organizationPrivate', message: 'Folder access type updated.' });
      assert.deepEqual(updated.nope, { success: false, id: 'nope', message: 'Folder does not exist.' });
      byId = new Map((await getFolders({ organizationId: id })).map((f: { folderId: string }) => [f.folderId, f])) as typeof byId;
      assert.equal(byId.get('r11')!.accessType, 'organizationPrivate');

      const inherited = expectSuccess(
        await call('/v2/organizations/folders/access/update', { organizationId: id, folderIds: ['r1', 'nope'], inheritFromParent: true }),
        'Updated access for folders successfully.',
      ).data;
      assert.deepEqual(inherited, {
        r1: { success: true, id: 'r1', accessType: null, inheritFromParent: true, message: 'Folder access type updated.' },
        nope: { success: false, id: 'nope', message: 'Folder does not exist.' },
      });
      byId = new Map((await getFolders({ organizationId: id })).map((f: { folderId: string }) => [f.folderId, f])) as typeof byId;
      assert.deepEqual([byId.get('r1')!.accessType, byId.get('r1')!.inheritAccessFromParent], ['restricted', true]);

      // Stopping inheritance without a type keeps each folder's current effective type as its own.
      const own = expectSuccess(
        await call('/v2/organizations/folders/access/update', { organizationId: id, folderIds: ['r11', 'r1'], inheritFromParent: false }),
      ).data;
      assert.deepEqual(own, {
        r11: { success: true, id: 'r11', accessType: 'restricted', inheritFromParent: false, message: 'Folder access type updated.' },
        r1: { success: true, id: 'r1', accessType: 'restricted', inheritFromParent: false, message: 'Folder access type updated.' },
      });
      expectSuccess(await call('/v2/organizations/folders/access/update', { organizationId: id, folderIds: ['r'], accessType: 'public' }));
      byId = new Map((await getFolders({ organizationId: id })).map((f: { folderId: string }) => [f.folderId, f])) as typeof byId;
      assert.deepEqual([byId.get('r11')!.accessType, byId.get('r11')!.inheritAccessFromParent], ['restricted', false]);
      assert.deepEqual([byId.get('r1')!.accessType, byId.get('r1')!.inheritAccessFromParent], ['restricted', false]);
      expectError(
        await call('/v2/organizations/folders/access/update', { organizationId: id, folderIds: ['r1'], inheritFromParent: true, accessType: 'public' }),
        400,
        'INVALID_ARGUMENT',
      );
      expectError(await call('/v2/organizations/folders/access/update', { organizationId: id, folderIds: ['r1'] }), 400, 'INVALID_ARGUMENT');
      expectError(
        await call('/v2/organizations/folders/access/update', { organizationId: id, folderIds: ['r1'], accessType: 'secret' }),
        400,
        'INVALID_ARGUMENT',
        'data.accessType must be one of: public, organizationPrivate, restricted',
      );
    });

    it('deletes a folder with its subfolders and their documents', async () => {
      const id = await newOrg();
      await addFolders(id, [{ folderId: 'keep' }, { folderId: 'gone' }, { folderId: 'gone1', parentFolderId: 'gone' }, { folderId: 'gone-x' }]);
      expectSuccess(await call('/v2/organizations/documents/add', { organizationId: id, folderId: 'gone1', documents: [{ documentId: 'inner' }] }));
      expectSuccess(await call('/v2/organizations/documents/add', { organizationId: id, folderId: 'keep', documents: [{ documentId: 'kept' }] }));
      const deleted = expectSuccess(await call('/v2/organizations/folders/delete', { organizationId: id, folderId: 'gone' }), 'Folder deleted successfully.');
      assert.equal(deleted.data, null);
      assert.deepEqual(
        (await getFolders({ organizationId: id })).map((f: { folderId: string }) => f.folderId).sort(),
        ['gone-x', 'keep'],
        'a sibling whose id shares the prefix survives',
      );
      assert.deepEqual(
        (await getDocuments({ organizationId: id })).data.map((d: { id: string }) => d.id),
        ['kept'],
      );
      expectError(await call('/v2/organizations/folders/delete', { organizationId: id, folderId: 'gone' }), 404, 'NOT_FOUND', 'Folder not found.');
    });

    it('answers per item in an organization that does not exist', async () => {
      const result = expectSuccess(
        await call('/v2/organizations/folders/update', { organizationId: 'no-org-here', folders: [{ folderId: 'a', folderName: 'x' }] }),
      ).data;
      assert.deepEqual(result.a, { success: false, id: 'a', message: 'Organization does not exist' });
      assert.deepEqual(await getFolders({ organizationId: 'no-org-here' }), []);
    });

    it('refuses duplicate folder ids in a batch', async () => {
      const id = await newOrg();
      expectError(
        await call('/v2/organizations/folders/add', { organizationId: id, folders: [{ folderId: 'a' }, { folderId: 'a' }] }),
        400,
        'INVALID_ARGUMENT',
        'data.folders[1].folderId repeats [0].folderId ("a")',
      );
      expectError(
        await call('/v2/organizations/folders/add', { organizationId: id, folders: [{ folderId: 'a', extra: 1 }] }),
        400,
        'INVALID_ARGUMENT',
        'Unknown field: data.folders[0].extra',
      );
    });
  });

  describe('documents', () => {
    it('adds documents with metadata, in folders, with effective access types', async () => {
      const id = await newOrg();
      await addFolders(id, [
        { folderId: 'secret', accessType: 'restricted' },
        { folderId: 'inner', parentFolderId: 'secret' },
      ]);
      const added = expectSuccess(
        await call('/v2/organizations/documents/add', {
          organizationId: id,
          folderId: 'inner',
          documents: [{ documentId: 'd1', documentName: 'Spec', owner: 'ann' }],
        }),
        'Document(s) added successfully.',
      ).data;
      assert.deepEqual(added.d1, { success: true, id: 'd1', message: 'Added Successfully' });
      // A folderId among an item's keys is metadata, not a folder: it must not read as one.
      expectSuccess(
        await call('/v2/organizations/documents/add', {
          organizationId: id,
          documents: [
            { documentId: 'top', folderId: 42 },
            { documentId: 'own', accessType: 'organizationPrivate' },
          ],
        }),
      );
      const again = expectSuccess(await call('/v2/organizations/documents/add', { organizationId: id, documents: [{ documentId: 'd1' }] })).data;
      assert.deepEqual(again.d1, { success: false, id: 'd1', message: 'Document already exists' });

      const documents = (await getDocuments({ organizationId: id })).data;
      const byId = new Map(documents.map((d: { id: string }) => [d.id, d])) as Map<string, Record<string, unknown>>;
      const d1 = byId.get('d1')!;
      assert.deepEqual(
        { ...d1, createdAt: 0, lastUpdated: 0 },
        { id: 'd1', documentName: 'Spec', disabled: false, accessType: 'restricted', folderId: 'inner', owner: 'ann', createdAt: 0, lastUpdated: 0 },
      );
      assert.equal(byId.get('top')!.accessType, 'public');
      assert.equal('folderId' in byId.get('top')!, false);
      assert.equal(byId.get('own')!.accessType, 'organizationPrivate');
      assert.deepEqual(
        (await getDocuments({ organizationId: id, folderId: 'inner' })).data.map((d: { id: string }) => d.id),
        ['d1'],
      );
      assert.deepEqual(
        (await getDocuments({ organizationId: id, folderId: 'root' })).data.map((d: { id: string }) => d.id),
        ['own', 'top'],
      );
      const some = await getDocuments({ organizationId: id, documentIds: ['own', 'nope'] });
      assert.deepEqual(
        some.data.map((d: { id: string }) => d.id),
        ['own'],
      );
      assert.deepEqual(some.notFound, { nope: { error: 'Document does not exist', errorCode: 'does_not_exist' } });
    });

    it('get with documentIds: data holds the documents found, notFound each id that names none', async () => {
      const id = await newOrg();
      await addFolders(id, [{ folderId: 'f' }]);
      expectSuccess(await call('/v2/organizations/documents/add', { organizationId: id, documents: [{ documentId: 'top1' }, { documentId: 'top2' }] }));
      expectSuccess(await call('/v2/organizations/documents/add', { organizationId: id, folderId: 'f', documents: [{ documentId: 'in-f' }] }));
      const missing = { error: 'Document does not exist', errorCode: 'does_not_exist' };

      const all = await getDocuments({ organizationId: id, documentIds: ['top1', 'top2'] });
      assert.deepEqual(
        all.data.map((d: { id: string }) => d.id),
        ['top1', 'top2'],
      );
      assert.equal('notFound' in all, false, 'absent when every requested document exists');

      const mixed = await getDocuments({ organizationId: id, documentIds: ['ghost', 'top2', 'ghost', 'gone'] });
      assert.deepEqual(
        mixed.data.map((d: { id: string }) => d.id),
        ['top2'],
        'data stays a flat list of real documents',
      );
      assert.deepEqual(mixed.notFound, { ghost: missing, gone: missing });

      // A document outside the folder filter exists: it is filtered out, not reported missing.
      const inFolder = await getDocuments({ organizationId: id, folderId: 'f', documentIds: ['in-f', 'top1', 'ghost'] });
      assert.deepEqual(
        inFolder.data.map((d: { id: string }) => d.id),
        ['in-f'],
      );
      assert.deepEqual(inFolder.notFound, { ghost: missing });

      // Paged: a document on another page is not missing; each page names the missing ids.
      const first = await getDocuments({ organizationId: id, documentIds: ['top1', 'top2', 'ghost'], pageSize: 1 });
      assert.deepEqual(
        first.data.map((d: { id: string }) => d.id),
        ['top1'],
      );
      assert.deepEqual(first.notFound, { ghost: missing });
      const second = await getDocuments({ organizationId: id, documentIds: ['top1', 'top2', 'ghost'], pageSize: 1, pageToken: first.pageToken });
      assert.deepEqual(
        second.data.map((d: { id: string }) => d.id),
        ['top2'],
      );
      assert.deepEqual(second.notFound, { ghost: missing });
      assert.equal(second.pageToken, undefined);

      assert.deepEqual(
        (await getDocuments({ organizationId: 'no-such-org', documentIds: ['top1'] })).notFound,
        { top1: missing },
        'an unknown organization holds no documents',
      );
      assert.equal('notFound' in (await getDocuments({ organizationId: id, documentIds: [] })), false, 'an empty filter names nothing');
      const other = agentFor(suite.app, await createKey(suite.app));
      const foreign = expectSuccess(await other('/v2/organizations/documents/get', { organizationId: id, documentIds: ['top1'] }));
      assert.deepEqual([foreign.data, foreign.notFound], [[], { top1: missing }], "another key's document reads as missing");
    });

    it('needs an existing folder unless createFolder, and the organization unless createOrganization', async () => {
      expectError(
        await call('/v2/organizations/documents/add', { organizationId: 'no-org', documents: [{ documentId: 'd' }] }),
        404,
        'NOT_FOUND',
        'Organization does not exist',
      );
      const id = await newOrg();
      expectError(
        await call('/v2/organizations/documents/add', { organizationId: id, folderId: 'nf', documents: [{ documentId: 'd' }] }),
        404,
        'NOT_FOUND',
        'Folder not found.',
      );
      expectSuccess(
        await call('/v2/organizations/documents/add', { organizationId: id, folderId: 'nf', createFolder: true, documents: [{ documentId: 'd' }] }),
      );
      assert.equal((await getFolders({ organizationId: id })).length, 1);
      expectSuccess(
        await call('/v2/organizations/documents/add', { organizationId: 'org-by-docs', createOrganization: true, documents: [{ documentId: 'd' }] }),
      );
    });

    it('updates, moves, sets access and disable state, deletes, each per item', async () => {
      const id = await newOrg();
      await addFolders(id, [{ folderId: 'f' }]);
      expectSuccess(await call('/v2/organizations/documents/add', { organizationId: id, documents: [{ documentId: 'a', tag: 1 }, { documentId: 'b' }] }));
      const updated = expectSuccess(
        await call('/v2/organizations/documents/update', {
          organizationId: id,
          documents: [{ documentId: 'a', documentName: 'A', color: 'red' }, { documentId: 'z' }],
        }),
        'Document(s) updated successfully.',
      ).data;
      assert.deepEqual(updated.z, { success: false, id: 'z', message: 'Document does not exist' });
      const moved = expectSuccess(
        await call('/v2/organizations/documents/move', { organizationId: id, documentIds: ['a', 'z'], folderId: 'f' }),
        'Documents moved successfully.',
      ).data;
      assert.equal(moved.a.success, true);
      assert.equal(moved.z.success, false);
      expectError(
        await call('/v2/organizations/documents/move', { organizationId: id, documentIds: ['a'], folderId: 'nope' }),
        404,
        'NOT_FOUND',
        'Folder not found.',
      );
      const access = expectSuccess(
        await call('/v2/organizations/documents/access/update', { organizationId: id, documentIds: ['b', 'z'], accessType: 'restricted' }),
        'Updated access for documents successfully.',
      ).data;
      // Upstream's `{ success, accessType, message }`, with the contract's `id`.
      assert.deepEqual(access, {
        b: { success: true, id: 'b', accessType: 'restricted', message: 'Document access type updated.' },
        z: { success: false, id: 'z', message: 'Document does not exist' },
      });
      const disabled = expectSuccess(
        await call('/v2/organizations/documents/access/disablestate/update', { organizationId: id, documentIds: ['b', 'z'], disabled: true }),
        'Updated disable state for documents successfully.',
      ).data;
      assert.deepEqual(disabled, {
        b: { success: true, id: 'b', disabled: true, message: 'Document disabled state updated.' },
        z: { success: false, id: 'z', message: 'Document does not exist' },
      });
      let byId = new Map((await getDocuments({ organizationId: id })).data.map((d: { id: string }) => [d.id, d])) as Map<string, Record<string, unknown>>;
      assert.deepEqual([byId.get('a')!.documentName, byId.get('a')!.tag, byId.get('a')!.color, byId.get('a')!.folderId], ['A', 1, 'red', 'f']);
      assert.deepEqual([byId.get('b')!.accessType, byId.get('b')!.disabled], ['restricted', true]);
      expectSuccess(await call('/v2/organizations/documents/move', { organizationId: id, documentIds: ['a'], folderId: 'root' }));
      const deleted = expectSuccess(
        await call('/v2/organizations/documents/delete', { organizationId: id, documentIds: ['b', 'z'] }),
        'Document(s) deleted successfully.',
      ).data;
      assert.deepEqual(deleted.b, { success: true, id: 'b', message: 'Deleted Successfully' });
      byId = new Map((await getDocuments({ organizationId: id })).data.map((d: { id: string }) => [d.id, d])) as typeof byId;
      assert.deepEqual([...byId.keys()], ['a']);
      assert.equal('folderId' in byId.get('a')!, false);
    });

    it('concurrent updates merging different metadata keys into one document and organization all survive', async () => {
      const id = await newOrg();
      expectSuccess(await call('/v2/organizations/documents/add', { organizationId: id, documents: [{ documentId: 'shared' }] }));
      const keys = Array.from({ length: 12 }, (_, i) => `key${i}`);
      await Promise.all(
        keys.map((key) => call('/v2/organizations/documents/update', { organizationId: id, documents: [{ documentId: 'shared', [key]: true }] })),
      );
      const [document] = (await getDocuments({ organizationId: id, documentIds: ['shared'] })).data;
      for (const key of keys) assert.equal(document[key], true, `document ${key} survived`);
      await Promise.all(keys.map((key) => call('/v2/organizations/update', { organizations: [{ organizationId: id, [key]: true }] })));
      const [organization] = expectSuccess(await call('/v2/organizations/get', { organizationIds: [id] })).data;
      for (const key of keys) assert.equal(organization[key], true, `organization ${key} survived`);
    });

    it('pages through 2,500 documents by 1000 with no repeat or gap while documents are added', async () => {
      const id = await newOrg();
      const original: string[] = [];
      for (let batch = 0; batch < 5; batch++) {
        const documents = Array.from({ length: 500 }, (_, i) => ({ documentId: `doc-${batch}-${String(i).padStart(3, '0')}` }));
        original.push(...documents.map((d) => d.documentId));
        expectSuccess(await call('/v2/organizations/documents/add', { organizationId: id, documents }));
      }
      const seen: string[] = [];
      let pageToken: string | undefined;
      let pages = 0;
      do {
        const page = await getDocuments({ organizationId: id, pageSize: 1000, ...(pageToken ? { pageToken } : {}) });
        seen.push(...page.data.map((d: { id: string }) => d.id));
        pageToken = page.pageToken;
        pages++;
        // New documents arrive between pages, including ids that sort before the cursor.
        expectSuccess(
          await call('/v2/organizations/documents/add', {
            organizationId: id,
            documents: [{ documentId: `aaa-late-${pages}` }, { documentId: `zzz-late-${pages}` }],
          }),
        );
      } while (pageToken && pages < 10);
      assert.equal(new Set(seen).size, seen.length, 'no document repeats');
      for (const documentId of original) assert.ok(seen.includes(documentId), `${documentId} missing`);
      assert.ok(pages >= 3);
    });

    it('listed documentIds are looked up by key, not found by walking the organization in page order', async () => {
      const id = await newOrg();
      const read = await statementOf(suite.app.dataSource, /FROM document WHERE/, async () =>
        expectSuccess(await call('/v2/organizations/documents/get', { organizationId: id, documentIds: ['d1', 'd2', 'd3', 'd4'] })),
      );
      const plan = await planOf(suite.app.dataSource, read);
      assert.doesNotMatch(plan, /document_page_idx/, plan);
      // PostgreSQL, on a test's empty statistics, may take any index for the WHERE; checked there:
      // no index gives the order, so it is free to look the ids up (it does, with real statistics).
      assert.match(plan, /sqlite_autoindex_document_1 \(api_key_id=\? AND organization_id=\? AND id=\?\)|Sort Key: \(\(document\.created_at \+ 0\)\)/, plan);
    });

    it('refuses 31 document ids, root as a folderId of a folder, and other keys’ data', async () => {
      const id = await newOrg();
      expectError(
        await call('/v2/organizations/documents/get', { organizationId: id, documentIds: Array.from({ length: 31 }, (_, i) => `d${i}`) }),
        400,
        'INVALID_ARGUMENT',
        'data.documentIds must contain at most 30 items',
      );
      expectError(
        await call('/v2/organizations/documents/add', { organizationId: id, documents: [{ documentId: 'x' }, { documentId: 'x' }] }),
        400,
        'INVALID_ARGUMENT',
        'data.documents[1].documentId repeats [0].documentId ("x")',
      );
      expectSuccess(await call('/v2/organizations/documents/add', { organizationId: id, documents: [{ documentId: 'mine' }] }));
      const other = agentFor(suite.app, await createKey(suite.app));
      assert.deepEqual(expectSuccess(await other('/v2/organizations/documents/get', { organizationId: id })).data, []);
      assert.deepEqual(expectSuccess(await other('/v2/organizations/get', {})).data, []);
      expectError(
        await other('/v2/organizations/folders/add', { organizationId: id, folders: [{ folderId: 'f' }] }),
        404,
        'NOT_FOUND',
        'Organization does not exist',
      );
      const foreignDelete = expectSuccess(await other('/v2/organizations/documents/delete', { organizationId: id, documentIds: ['mine'] })).data;
      assert.equal(foreignDelete.mine.success, false);
      assert.deepEqual(
        (await getDocuments({ organizationId: id })).data.map((d: { id: string }) => d.id),
        ['mine'],
      );
    });
  });
});
