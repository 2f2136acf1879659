import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually, startApp, type TestApp } from './helpers/app.js';
import { ownDatabase, type OwnDatabase } from './helpers/database.js';
import { agentFor, createKey, expectSuccess, type TestKey } from './factories/workspace.js';

const ORG = 'org-inbox';
const ana = { userId: 'ana', name: 'Ana' };
const bob = { userId: 'bob', name: 'Bob' };

/**
 * Inbox entries of notifying comments are written by the delivery worker (issue 33): the comment
 * write only queues its inbox audience in the outbox. One database, two lives of the service:
 * the first without a worker, so what it queued is still waiting when the second, with one,
 * starts on the same data.
 */
describe('inbox entries come from the delivery worker (issue 33)', () => {
  let database: OwnDatabase;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-inbox-'));
  const shared = { DATA_DIR: dataDir, SQLITE_FILE: join(dataDir, 'svc.sqlite'), MASTER_KEY: randomBytes(32).toString('base64') };
  let app: TestApp | undefined;
  let key: TestKey;

  before(async () => {
    database = await ownDatabase();
  });
  after(async () => {
    await app?.close();
    await database.drop();
  });

  const notifyingThread = (documentId: string) =>
    agentFor(app!, key)('/v2/commentannotations/add', {
      organizationId: ORG,
      documentId,
      createDocument: true,
      commentAnnotations: [
        { commentData: [{ commentText: 'Hey {{bob}}', from: ana, taggedUserContacts: [{ userId: 'bob', contact: bob }], triggerNotification: true }] },
      ],
    });
  const inboxOf = async (userId: string) =>
    expectSuccess(await agentFor(app!, key)('/v2/notifications/get', { organizationId: ORG, userId })).data as { metadata: { documentId: string } }[];
  const outboxMessages = async () => Number((await app!.dataSource.query('SELECT COUNT(*) AS n FROM outbox_message'))[0].n);

  it('queued without a worker, written by the next one; none for a document deleted meanwhile; the event then leaves the outbox', async () => {
    app = await startApp({ ...shared, DATABASE_URL: database.url, DELIVERY_CONCURRENCY: '0' });
    key = await createKey(app);
    expectSuccess(await agentFor(app, key)('/v2/users/add', { organizationId: ORG, users: [ana, bob] }));
    expectSuccess(await notifyingThread('kept'));
    expectSuccess(await notifyingThread('dropped'));
    expectSuccess(await agentFor(app, key)('/v2/organizations/documents/delete', { organizationId: ORG, documentIds: ['dropped'] }));
    // Answered, but nobody has worked out the audience yet: the inbox is empty, the events wait.
    assert.deepEqual(await inboxOf('bob'), []);
    assert.equal(await outboxMessages(), 2);
    await app.close();

    app = await startApp({ ...shared, DATABASE_URL: database.url, DELIVERY_CONCURRENCY: '4' });
    const settled = await eventually(outboxMessages, (n) => n === 0);
    assert.equal(settled, 0, 'settled inbox-only events are deleted');
    assert.deepEqual(
      (await inboxOf('bob')).map((entry) => entry.metadata.documentId),
      ['kept'],
    );
    assert.deepEqual(await inboxOf('ana'), [], 'never the acting user');
  });
});
