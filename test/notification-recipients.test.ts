import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AccessService } from '../src/access/access.service.js';
import { NotificationRecipients } from '../src/delivery/notification-recipients.js';
import type { OutboxEvent } from '../src/delivery/outbox-event.js';
import { startApp, type TestApp } from './helpers/app.js';
import { countQueries } from './helpers/query-counter.js';
import { agentFor, createKey, expectSuccess, type TestKey } from './factories/workspace.js';

const ORG = 'recipients-org';
const OTHER_ORG = 'recipients-other-org';

/**
 * The delivery worker works out the recipients of a claimed batch of inbox audiences together:
 * the audiences and preferences of all the batch's documents in one organization with the
 * statements of one document, and the profiles once. Each document's recipients are still those
 * it has read alone.
 */
describe('notification recipients of many documents, read together', () => {
  let app: TestApp;
  let key: TestKey;
  const event = (organizationId: string, documentId: string, involved: string[] = []): OutboxEvent => ({
    type: 'comment.add',
    source: 'comment',
    key: null,
    organizationId,
    documentId,
    actionUser: { userId: 'actor' } as OutboxEvent['actionUser'],
    data: { entityData: { involvedUserIds: involved } },
  });

  before(async () => {
    app = await startApp();
    key = await createKey(app);
    const call = agentFor(app, key);
    expectSuccess(await call('/v2/organizations/folders/add', { organizationId: ORG, createOrganization: true, folders: [{ folderId: 'top' }] }));
    expectSuccess(await call('/v2/organizations/folders/add', { organizationId: ORG, folders: [{ folderId: 'mid', parentFolderId: 'top' }] }));
    expectSuccess(await call('/v2/organizations/documents/add', { organizationId: ORG, folderId: 'mid', documents: [{ documentId: 'in-mid' }] }));
    expectSuccess(
      await call('/v2/organizations/documents/add', {
        organizationId: ORG,
        documents: [
          { documentId: 'open', accessType: 'public' },
          { documentId: 'closed', accessType: 'restricted' },
        ],
      }),
    );
    expectSuccess(
      await call('/v2/organizations/documents/add', { organizationId: OTHER_ORG, createOrganization: true, documents: [{ documentId: 'in-mid' }] }),
    );
    // An organization user, a user of the folder above `in-mid`, a user of `closed` alone (who
    // must not join the audience of `open`, public as it is: no grant of theirs is there), and
    // one of the other organization.
    expectSuccess(await call('/v2/users/add', { organizationId: ORG, users: [{ userId: 'member', name: 'Member', email: 'member@example.com' }] }));
    const grant = (userId: string, resource: Record<string, unknown>) =>
      call('/v2/auth/permissions/add', { user: { userId }, permissions: { resources: [{ ...resource, accessRole: 'viewer' }] } });
    expectSuccess(await grant('folk', { type: 'folder', id: 'top', organizationId: ORG }));
    expectSuccess(await grant('closed-only', { type: 'document', id: 'closed', organizationId: ORG }));
    expectSuccess(await grant('elsewhere', { type: 'document', id: 'in-mid', organizationId: OTHER_ORG }));
    expectSuccess(await call('/v2/workspace/notificationconfig/update', { useNotificationService: true }));
    // Preferences at both levels: `member` hears nothing of `closed`, `folk` hears only what involves them.
    expectSuccess(
      await call('/v2/notifications/config/set', {
        organizationId: ORG,
        userIds: ['member'],
        documentIds: ['closed'],
        config: { inbox: 'NONE', email: 'NONE' },
      }),
    );
    expectSuccess(await call('/v2/notifications/config/set', { organizationId: ORG, userIds: ['folk'], config: { inbox: 'MINE', email: 'MINE' } }));
  });
  after(() => app.close());

  it('each document has the audience it has read alone; a missing one has none', async () => {
    const access = app.app.get(AccessService);
    const documents = ['in-mid', 'open', 'closed', 'missing'];
    const together = await access.documentAudiences(key.apiKey, ORG, documents);
    for (const documentId of documents)
      assert.deepEqual(together.get(documentId) ?? [], await access.documentAudience(key.apiKey, ORG, documentId), documentId);
    assert.equal(together.has('missing'), false);
    assert.deepEqual(
      together.get('open')!.map((entry) => entry.userId),
      ['member'],
      'a grant on another document of the organization is no way into a public one',
    );
    assert.deepEqual(
      together.get('in-mid')!.map((entry) => entry.userId),
      ['folk', 'member'],
    );
  });

  it('recipients of events on several documents: as read one by one, in the statements of one document per organization', async () => {
    const recipients = app.app.get(NotificationRecipients);
    const events = [
      event(ORG, 'in-mid', ['folk']),
      event(ORG, 'open'),
      event(ORG, 'closed'),
      event(ORG, 'in-mid'),
      event(ORG, 'missing'),
      event(OTHER_ORG, 'in-mid'),
    ];
    const alone = [];
    for (const one of events) alone.push(await recipients.of(key.apiKey, one));
    const counter = countQueries(app.dataSource);
    const together = await recipients.ofEach(key.apiKey, events);
    const statements = counter.queries.length;
    counter.reset();
    await recipients.ofEach(key.apiKey, [event(ORG, 'in-mid', ['folk']), event(OTHER_ORG, 'in-mid')]);
    const statementsOfOneDocumentEach = counter.queries.length;
    assert.deepEqual(together, alone);
    assert.deepEqual(
      together.map((list) => list.map((recipient) => `${recipient.userId}:${recipient.channels.join('+')}`)),
      // Defaults: inbox ALL, email MINE; `folk` chose MINE for both, `member` nothing for `closed`.
      [['folk:inbox+email', 'member:inbox'], ['member:inbox'], ['closed-only:inbox'], ['member:inbox'], [], ['elsewhere:inbox']],
    );
    assert.equal(together[0]![1]!.email, 'member@example.com');
    assert.equal(statements, statementsOfOneDocumentEach, counter.queries.join('\n'));
  });
});
