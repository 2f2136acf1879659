import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GrantRow, PermissionWorld } from '../../src/access/permission-world.js';
import { PermissionResolver } from '../../src/access/permission-world.js';
import { permissionsJson, permissionsMap, userAnswers } from '../../src/access/permissions-answer.js';
import type { AccessType } from '../../src/common/access-types.js';
import { childPath } from '../../src/directory/folder-paths.js';

const NOW = 1_900_000_000;
const FUTURE = NOW + 3600;
const PAST = NOW - 1;

/** Folders: [id, parent, own accessType or null (inherit)]. */
const FOLDERS: [string, string | null, AccessType | null][] = [
  ['plain', null, null], // inherits the key default (public)
  ['r', null, 'restricted'],
  ['r1', 'r', null],
  ['r11', 'r1', null],
  ['p', null, 'organizationPrivate'],
  ['p1', 'p', 'public'],
  ['p11', 'p1', null],
  ['x', null, 'restricted'],
  ['x1', 'x', 'organizationPrivate'],
];

/** Documents: [id, folder, own accessType, disabled]. */
const DOCUMENTS: [string, string | null, AccessType | null, boolean][] = [
  ['dTop', null, null, false],
  ['dPlain', 'plain', null, false],
  ['dR11', 'r11', null, false],
  ['dP', 'p', null, false],
  ['dP11', 'p11', null, false],
  ['dOwnRestricted', null, 'restricted', false],
  ['dOwnPublicInR', 'r1', 'public', false],
  ['dX1', 'x1', null, false],
  ['dOff', null, null, true],
  // Moved from r11 into p: grants on r11 no longer reach it.
  ['dMoved', 'p', null, false],
];

const grant = (
  userId: string,
  resourceType: GrantRow['resourceType'],
  resourceId: string,
  accessRole: 'editor' | 'viewer',
  expiresAt: number | null = null,
): GrantRow => ({
  userId,
  resourceType,
  resourceId,
  temporary: expiresAt !== null,
  accessRole,
  expiresAt,
});

const GRANTS: GrantRow[] = [
  grant('member', 'organization', 'o', 'editor'),
  grant('viewerMember', 'organization', 'o', 'viewer'),
  grant('tempMember', 'organization', 'o', 'viewer', FUTURE),
  grant('expiredMember', 'organization', 'o', 'editor', PAST),
  grant('folderUser', 'folder', 'r', 'viewer'),
  grant('nearest', 'folder', 'r', 'viewer'),
  grant('nearest', 'folder', 'r1', 'editor'),
  grant('docUser', 'document', 'dR11', 'editor'),
  grant('tempUser', 'document', 'dR11', 'editor', FUTURE),
  grant('expiredUser', 'document', 'dR11', 'editor', PAST),
  grant('mixed', 'document', 'dR11', 'viewer'),
  grant('mixed', 'document', 'dR11', 'editor', FUTURE),
  grant('tempFolder', 'folder', 'r1', 'viewer', FUTURE),
  grant('expiredFolder', 'folder', 'r1', 'editor', PAST),
  grant('oldFolder', 'folder', 'r11', 'editor'),
  grant('docOverFolder', 'folder', 'r', 'editor'),
  grant('docOverFolder', 'document', 'dR11', 'viewer'),
  grant('memberWithDoc', 'organization', 'o', 'viewer'),
  grant('memberWithDoc', 'document', 'dX1', 'editor'),
  grant('offUser', 'document', 'dOff', 'editor'),
  grant('xViewer', 'folder', 'x', 'viewer'),
];

function world(overrides: Partial<PermissionWorld> = {}): PermissionWorld {
  const paths = new Map<string, string>();
  for (const [id, parent] of FOLDERS) paths.set(id, childPath(parent ? paths.get(parent)! : '', id));
  return {
    organization: { id: 'o', disabled: false },
    keyDefault: 'public',
    folders: new Map(FOLDERS.map(([id, , accessType]) => [id, { id, path: paths.get(id)!, accessType }])),
    documents: new Map(DOCUMENTS.map(([id, folderId, accessType, disabled]) => [id, { id, folderId, accessType, disabled }])),
    grants: GRANTS,
    now: NOW,
    ...overrides,
  };
}

type Expected = { accessRole: string; accessType: AccessType; expiresAt?: number } | { denied: string; accessType: AccessType };
const allow = (accessRole: string, accessType: AccessType, expiresAt?: number): Expected =>
  expiresAt === undefined ? { accessRole, accessType } : { accessRole, accessType, expiresAt };
const deny = (accessType: AccessType, denied = 'User does not have access'): Expected => ({ denied, accessType });

const CASES: [string, string, 'document' | 'folder', string, Expected][] = [
  // Step 4, public: members get their organization role, anyone else editor.
  ['public top-level document, organization editor', 'member', 'document', 'dTop', allow('editor', 'public')],
  ['public top-level document, organization viewer', 'viewerMember', 'document', 'dTop', allow('viewer', 'public')],
  ['public top-level document, non-member', 'outsider', 'document', 'dTop', allow('editor', 'public')],
  ['document in an inheriting top folder takes the key default', 'outsider', 'document', 'dPlain', allow('editor', 'public')],
  ['folder inheriting the key default', 'viewerMember', 'folder', 'plain', allow('viewer', 'public')],
  ['own public inside a restricted tree', 'outsider', 'document', 'dOwnPublicInR', allow('editor', 'public')],
  ['public folder below an organizationPrivate one', 'outsider', 'folder', 'p1', allow('editor', 'public')],
  ['inheriting folder below a public one', 'outsider', 'folder', 'p11', allow('editor', 'public')],
  ['document two levels below an own-public folder', 'viewerMember', 'document', 'dP11', allow('viewer', 'public')],
  // Step 4, organizationPrivate.
  ['organizationPrivate document, member', 'member', 'document', 'dP', allow('editor', 'organizationPrivate')],
  ['organizationPrivate document, viewer member', 'viewerMember', 'document', 'dP', allow('viewer', 'organizationPrivate')],
  ['organizationPrivate document, non-member', 'outsider', 'document', 'dP', deny('organizationPrivate')],
  ['organizationPrivate folder, non-member', 'outsider', 'folder', 'p', deny('organizationPrivate')],
  ['organizationPrivate folder inside a restricted one, member', 'member', 'folder', 'x1', allow('editor', 'organizationPrivate')],
  ['temporary organization member counts while live', 'tempMember', 'document', 'dP', allow('viewer', 'organizationPrivate')],
  ['expired organization membership counts as absent', 'expiredMember', 'document', 'dP', deny('organizationPrivate')],
  ['expired member on a public document gets editor, not their old role', 'expiredMember', 'document', 'dTop', allow('editor', 'public')],
  // Step 4, restricted.
  ['restricted document, member without grants', 'member', 'document', 'dR11', deny('restricted')],
  ['restricted document, non-member', 'outsider', 'document', 'dR11', deny('restricted')],
  ['own restricted top-level document, member', 'member', 'document', 'dOwnRestricted', deny('restricted')],
  ['restricted folder, member', 'member', 'folder', 'r', deny('restricted')],
  ['inheriting folder two levels below restricted', 'member', 'folder', 'r11', deny('restricted')],
  // Step 2: grant on the resource itself.
  ['document grant opens a restricted document', 'docUser', 'document', 'dR11', allow('editor', 'restricted')],
  ['temporary document grant opens it, with expiresAt', 'tempUser', 'document', 'dR11', allow('editor', 'restricted', FUTURE)],
  ['expired document grant counts as absent', 'expiredUser', 'document', 'dR11', deny('restricted')],
  ['regular grant is not replaced by a temporary one', 'mixed', 'document', 'dR11', allow('viewer', 'restricted')],
  ['document grant wins over a folder grant above', 'docOverFolder', 'document', 'dR11', allow('viewer', 'restricted')],
  ['document grant gives its role over the organization role', 'memberWithDoc', 'document', 'dX1', allow('editor', 'organizationPrivate')],
  ['folder grant on the folder itself', 'folderUser', 'folder', 'r', allow('viewer', 'restricted')],
  // Step 3: nearest folder with a grant.
  ['folder grant reaches documents two levels down', 'folderUser', 'document', 'dR11', allow('viewer', 'restricted')],
  ['folder grant reaches subfolders', 'folderUser', 'folder', 'r11', allow('viewer', 'restricted')],
  ['nearest folder grant wins', 'nearest', 'document', 'dR11', allow('editor', 'restricted')],
  ['nearest grant for a folder is its own', 'nearest', 'folder', 'r1', allow('editor', 'restricted')],
  ['folder above the nearest grant keeps its own', 'nearest', 'folder', 'r', allow('viewer', 'restricted')],
  ['temporary folder grant reaches down, with expiresAt', 'tempFolder', 'document', 'dR11', allow('viewer', 'restricted', FUTURE)],
  ['expired folder grant counts as absent', 'expiredFolder', 'document', 'dR11', deny('restricted')],
  ['folder grant does not reach a document outside the tree', 'folderUser', 'document', 'dP', deny('organizationPrivate')],
  ['grant on the old folder no longer reaches a moved document', 'oldFolder', 'document', 'dMoved', deny('organizationPrivate')],
  ['folder grant reaches a document with its own public type too', 'folderUser', 'document', 'dOwnPublicInR', allow('viewer', 'public')],
  ['folder grant above an organizationPrivate subfolder', 'xViewer', 'document', 'dX1', allow('viewer', 'organizationPrivate')],
  // Step 1: disabled.
  ['disabled document denies even its own grant', 'offUser', 'document', 'dOff', deny('public', 'Access to this document is disabled')],
  ['disabled document denies members', 'member', 'document', 'dOff', deny('public', 'Access to this document is disabled')],
];

describe('permission resolution (contract part 5)', () => {
  const resolver = new PermissionResolver(world());
  for (const [name, userId, type, id, expected] of CASES) {
    it(name, () => {
      const entry = resolver.permission(userId, { type, id });
      if ('denied' in expected) {
        assert.equal(entry.accessType, expected.accessType);
        assert.ok('error' in entry, `expected a denial, got ${JSON.stringify(entry)}`);
        assert.equal(entry.errorCode, 'permission_denied');
        assert.ok(entry.error.startsWith(expected.denied), entry.error);
      } else {
        assert.deepEqual(entry, expected);
      }
    });
  }

  describe('a disabled organization', () => {
    const off = new PermissionResolver(world({ organization: { id: 'o', disabled: true } }));
    for (const [userId, type, id] of [
      ['member', 'document', 'dTop'],
      ['docUser', 'document', 'dR11'],
      ['folderUser', 'folder', 'r'],
      ['outsider', 'document', 'dTop'],
    ] as const) {
      it(`denies ${userId} on ${type} ${id}`, () => {
        const entry = off.permission(userId, { type, id });
        assert.ok('error' in entry && entry.error === 'Access to this organization is disabled', JSON.stringify(entry));
      });
    }
    it('denies the organization entry', () => {
      assert.deepEqual(off.organizationEntry(off.organizationRole('member')), {
        error: 'Access to this organization is disabled',
        errorCode: 'permission_denied',
      });
    });
  });

  describe('organization entries', () => {
    it('give members their role', () => assert.deepEqual(resolver.organizationEntry(resolver.organizationRole('viewerMember')), { accessRole: 'viewer' }));
    it('deny non-members', () =>
      assert.deepEqual(resolver.organizationEntry(resolver.organizationRole('folderUser')), {
        error: 'User does not have access to organization',
        errorCode: 'permission_denied',
      }));
    it('deny expired temporary members', () => assert.equal('error' in resolver.organizationEntry(resolver.organizationRole('expiredMember')), true));
  });

  it('has at least 40 resolution cases', () => assert.ok(CASES.length >= 40, `${CASES.length} cases`));

  describe('explain (permissions explain)', () => {
    const explaining = new PermissionResolver(world());
    it('gives the entry permission gives, in every case', () => {
      for (const [name, userId, type, id] of CASES)
        assert.deepEqual(explaining.explain(userId, { type, id }).entry, resolver.permission(userId, { type, id }), name);
    });
    const grantedBy = (userId: string, type: 'document' | 'folder', id: string) => explaining.explain(userId, { type, id }).grantedBy;
    const regular = (accessRole: string) => ({ accessRole, expiresAt: null, temporary: false });
    it('names the document grant', () =>
      assert.deepEqual(grantedBy('docOverFolder', 'document', 'dR11'), { kind: 'documentGrant', resourceId: 'dR11', grant: regular('viewer') }));
    it('names the nearest folder holding a grant', () =>
      assert.deepEqual(grantedBy('nearest', 'document', 'dR11'), { kind: 'folderGrant', resourceId: 'r1', grant: regular('editor') }));
    it("names a folder's own grant", () =>
      assert.deepEqual(grantedBy('nearest', 'folder', 'r1'), { kind: 'folderGrant', resourceId: 'r1', grant: regular('editor') }));
    it('names the temporary grant used, with its expiry', () =>
      assert.deepEqual(grantedBy('tempFolder', 'document', 'dR11'), {
        kind: 'folderGrant',
        resourceId: 'r1',
        grant: { accessRole: 'viewer', expiresAt: FUTURE, temporary: true },
      }));
    it('names the regular grant over a temporary one at the same place', () =>
      assert.deepEqual(grantedBy('mixed', 'document', 'dR11'), { kind: 'documentGrant', resourceId: 'dR11', grant: regular('viewer') }));
    it('skips an expired grant', () => assert.deepEqual(grantedBy('expiredUser', 'document', 'dR11'), { kind: 'noAccess' }));
    it('public access: the organization grant for members, nothing for others', () => {
      assert.deepEqual(grantedBy('viewerMember', 'document', 'dTop'), { kind: 'publicAccess', resourceId: 'o', grant: regular('viewer') });
      assert.deepEqual(grantedBy('outsider', 'document', 'dTop'), { kind: 'publicAccess' });
      assert.deepEqual(grantedBy('expiredMember', 'document', 'dTop'), { kind: 'publicAccess' });
    });
    it('organizationPrivate: the organization grant, temporary ones too', () =>
      assert.deepEqual(grantedBy('tempMember', 'document', 'dP'), {
        kind: 'organizationRole',
        resourceId: 'o',
        grant: { accessRole: 'viewer', expiresAt: FUTURE, temporary: true },
      }));
    it('disabled document and organization', () => {
      assert.deepEqual(grantedBy('offUser', 'document', 'dOff'), { kind: 'documentDisabled', resourceId: 'dOff' });
      const off = new PermissionResolver(world({ organization: { id: 'o', disabled: true } }));
      assert.deepEqual(off.explain('docUser', { type: 'document', id: 'dR11' }).grantedBy, { kind: 'organizationDisabled', resourceId: 'o' });
    });
  });
});

describe("permissions get's answers: a role's answer with a user's own entries put in", () => {
  const users = [...new Set([...GRANTS.map((g) => g.userId), 'outsider'])];
  const folders = [...FOLDERS.map(([id]) => id), 'gone-folder'];
  const documents = [...DOCUMENTS.map(([id]) => id), 'gone-document'];
  const orders = {
    'request order': { folder: folders, document: documents },
    reversed: { folder: [...folders].reverse(), document: [...documents].reverse() },
  };
  for (const [name, ids] of Object.entries(orders)) {
    it(`every user's entries are those resolved one at a time, all users asked at once (${name})`, () => {
      const resolver = new PermissionResolver(world());
      const requested = { ...ids, exists: { folder: (id: string) => id !== 'gone-folder', document: (id: string) => id !== 'gone-document' } };
      const answers = userAnswers(resolver, users, requested, { folders: true, documents: true });
      // The oracle: explain resolves each case in full, sharing nothing between users or resources.
      const alone = new PermissionResolver(world());
      let patched = 0;
      for (const userId of users) {
        const answer = answers.get(userId)!;
        if (answer.patch) patched++;
        for (const type of ['folder', 'document'] as const) {
          const entries = answer[type === 'folder' ? 'folders' : 'documents']!;
          ids[type].forEach((id, at) => {
            const expected = requested.exists[type](id) ? alone.explain(userId, { type, id }).entry : { errorCode: 'does_not_exist' };
            if ('errorCode' in expected && expected.errorCode === 'does_not_exist')
              assert.equal((entries[at] as { errorCode?: string }).errorCode, 'does_not_exist');
            else assert.deepEqual(entries[at], expected, `${userId} on ${type} ${id}`);
          });
        }
      }
      // Most fixture users hold grants below the organization: their answers are patched ones.
      assert.ok(patched >= 10, `${patched} patched answers`);
      // Spliced into their role's bytes, they still say what the objects say.
      const layout = { organizationId: 'o', folderIds: ids.folder, documentIds: ids.document };
      const resolved = users.map((userId) => ({ userId, answer: answers.get(userId)! }));
      assert.deepEqual(
        JSON.parse(Buffer.concat(permissionsJson(layout, resolved).parts()).toString('utf8')),
        JSON.parse(JSON.stringify(permissionsMap(layout, resolved))),
      );
    });
  }
});

describe('users of one kind: the same grants, however their rows come, and nothing less', () => {
  const kindGrants: GrantRow[] = [
    grant('first', 'document', 'dR11', 'editor'),
    grant('first', 'folder', 'x', 'viewer'),
    // The same two grants, read in the other order.
    grant('same', 'folder', 'x', 'viewer'),
    grant('same', 'document', 'dR11', 'editor'),
    // The same places and roles, one of them temporary.
    grant('temporary', 'document', 'dR11', 'editor', FUTURE),
    grant('temporary', 'folder', 'x', 'viewer'),
    // An id that ends like another id begins, so texts joined without care would match.
    grant('tricky', 'document', 'dR11 regular editor null\nfolder 1:x', 'viewer'),
    grant('also', 'document', 'dR11', 'editor'),
    grant('also', 'folder', 'x', 'viewer'),
    grant('also', 'document', 'dP', 'viewer'),
  ];
  const resolver = new PermissionResolver(world({ grants: kindGrants }));

  it('users holding the same grants are one kind whatever the order of their rows', () => assert.equal(resolver.kindOf('same'), resolver.kindOf('first')));
  it('a temporary grant in place of a regular one makes another kind', () => assert.notEqual(resolver.kindOf('temporary'), resolver.kindOf('first')));
  it('one grant more makes another kind', () => assert.notEqual(resolver.kindOf('also'), resolver.kindOf('first')));
  it('an id holding what a joined text would hold makes another kind', () => assert.notEqual(resolver.kindOf('tricky'), resolver.kindOf('first')));
  it('users without grants below the organization are the kind of their role', () => assert.equal(resolver.kindOf('nobody'), resolver.kindOf('outsider')));

  it('entries without an expiry are shared and cannot be changed; an expiring one is its own', () => {
    const a = resolver.permission('first', { type: 'document', id: 'dR11' });
    const b = resolver.permission('same', { type: 'document', id: 'dR11' });
    assert.equal(a, b);
    assert.ok(Object.isFrozen(a));
    assert.throws(() => Object.assign(a, { accessRole: 'viewer' }), TypeError);
    const expiring = resolver.permission('temporary', { type: 'document', id: 'dR11' });
    assert.deepEqual(expiring, { accessRole: 'editor', accessType: 'restricted', expiresAt: FUTURE });
    assert.notEqual(expiring, resolver.permission('temporary', { type: 'document', id: 'dR11' }));
  });
});
