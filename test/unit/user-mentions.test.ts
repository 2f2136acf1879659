import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Activity } from '../../src/activity/activity-store.js';
import { activityListOf, namesUser, withoutUsers } from '../../src/privacy/user-mentions.js';

const record = (fields: Partial<Activity>): Activity => ({
  id: 'a',
  featureType: 'comment',
  actionType: 'comment.add',
  actionUser: { userId: 'bob' },
  metadata: { apiKey: 'k', documentId: 'd', organizationId: 'o' },
  timestamp: 1,
  ...fields,
});
const ana = { userId: 'ana', name: 'Ana', email: 'ana@example.com' };

describe('privacy: which records name a user, and taking them out', () => {
  it("sorts records into upstream's recordings and our activities", () => {
    const table: [Partial<Activity>, string][] = [
      [{ featureType: 'comment', actionType: 'comment_annotation.add' }, 'activities'],
      [{ featureType: 'comment', actionType: 'comment.reaction_add' }, 'activities'],
      [{ featureType: 'reaction', actionType: 'reaction.add' }, 'activities'],
      [{ featureType: 'recorder', actionType: 'recorder.done' }, 'recordings'],
      [{ featureType: 'crdt', actionType: 'crdt.update_data' }, 'activities'],
      [{ featureType: 'custom', actionType: 'task.done' }, 'activities'],
    ];
    for (const [fields, list] of table) assert.equal(activityListOf(record(fields)), list, JSON.stringify(fields));
  });

  it('removes list items that are the user, nulls other values that are, and leaves the rest', () => {
    const table: [string, Partial<Activity>, Partial<Activity> | undefined][] = [
      [
        'a tagged contact, as either shape',
        { entityData: { taggedUserContacts: [{ contact: ana }, ana, { userId: 'carl' }] } },
        { entityData: { taggedUserContacts: [{ userId: 'carl' }] } },
      ],
      ['an id in involvedUserIds', { entityData: { involvedUserIds: ['ana', 'carl'] } }, { entityData: { involvedUserIds: ['carl'] } }],
      [
        'a thread author, deep in a snapshot',
        { entityTargetData: { comments: [{ from: ana, text: 'x' }] } },
        { entityTargetData: { comments: [{ from: null, text: 'x' }] } },
      ],
      [
        'a change of assignee',
        { changes: { assignedTo: { from: ana, to: { userId: 'carl' } } } },
        { changes: { assignedTo: { from: null, to: { userId: 'carl' } } } },
      ],
      ['a template value', { displayMessageTemplateData: { user: ana } }, { displayMessageTemplateData: { user: null } }],
      ['the id as text, or in another list of strings', { entityData: { text: 'ana', tags: ['ana'] } }, undefined],
      ['nothing of hers', { entityData: { from: { userId: 'carl' } } }, undefined],
    ];
    for (const [name, fields, expected] of table) {
      const scrubbed = withoutUsers(record(fields), new Set(['ana']));
      assert.deepEqual(scrubbed, expected === undefined ? undefined : record(expected), name);
    }
    assert.equal(withoutUsers(record({ actionUser: ana }), new Set(['ana'])), undefined, 'the acting user is not scrubbed: such records are deleted whole');
  });

  it('names: made by, or naming, the user', () => {
    assert.equal(namesUser(record({ actionUser: ana }), 'ana'), true);
    assert.equal(namesUser(record({ displayMessageTemplateData: { user: ana } }), 'ana'), true);
    assert.equal(namesUser(record({ entityData: { text: 'ana' } }), 'ana'), false);
  });
});
