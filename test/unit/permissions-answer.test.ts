import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { permissionsJson, permissionsMap, type KindAnswer, type PermissionsLayout, type ResolvedUser } from '../../src/access/permissions-answer.js';

const editor = { accessRole: 'editor', accessType: 'public' } as const;
const denied = { accessType: 'restricted', error: 'User does not have access to this document', errorCode: 'permission_denied' } as const;
const missing = { error: 'Document does not exist', errorCode: 'does_not_exist' } as const;
const member: KindAnswer = { organization: { accessRole: 'viewer' }, folders: [editor], documents: [editor, denied, missing] };
const outsider: KindAnswer = {
  organization: { error: 'User does not have access to organization', errorCode: 'permission_denied' },
  folders: [denied],
  documents: [denied, denied, missing],
};
const layout: PermissionsLayout = { organizationId: 'o"rg', folderIds: ['f'], documentIds: ['d1', '__proto__', 'gone'] };
const users: ResolvedUser[] = [
  { userId: 'a', answer: member },
  { userId: 'b', answer: member, context: { accessFields: ['team:b'] } },
  { userId: 'c\u2028', answer: outsider },
  { userId: '__proto__', answer: outsider, context: { accessFields: [] } },
];

describe('access: the permissions get answer, as objects and as JSON', () => {
  const decode = (layout: PermissionsLayout) => JSON.parse(Buffer.concat(permissionsJson(layout, users).parts()).toString('utf8'));

  it('the JSON, spliced from shared pieces, says exactly what the objects say', () => {
    const objects = permissionsMap(layout, users);
    assert.deepEqual(decode(layout), JSON.parse(JSON.stringify(objects)));
    assert.deepEqual(Object.keys(objects), ['a', 'b', 'c\u2028', '__proto__']);
  });

  it('keeps the contract order of keys, with a user’s own context last', () => {
    const json = decode(layout);
    assert.deepEqual(Object.keys(json.b), ['organization', 'folders', 'documents', 'context']);
    assert.deepEqual(json.b.context, { accessFields: ['team:b'] });
    assert.equal('context' in json.a, false);
    assert.deepEqual(json.a.organization, { 'o"rg': { accessRole: 'viewer' } });
    assert.deepEqual(Object.keys(json.a.documents), ['d1', '__proto__', 'gone']);
    assert.deepEqual(json.a.documents.__proto__, denied);
  });

  it('leaves out what was not asked for', () => {
    const onlyOrganization = decode({ organizationId: 'o"rg' });
    assert.deepEqual(Object.keys(onlyOrganization.a), ['organization']);
    assert.deepEqual(Object.keys(permissionsMap({ organizationId: 'o"rg' }, users).b as object), ['organization', 'context']);
  });
});
