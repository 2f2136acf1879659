// @testScope engine: it reads every table, and on the embedded database its files, below the HTTP layer.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectSuccess } from './factories/workspace.js';

/** Who is erased: an id, a name and an address found nowhere else, so any copy left is hers. */
const ERASED = { userId: 'zoe-5f1c9a', name: 'Zoe Quillfeather', email: 'zoe.quillfeather@example.org' };
const BOB = { userId: 'bob', name: 'Bob' };
const TRACES = [ERASED.userId, ERASED.name, ERASED.email];

/** Every row of every table (but the migrations' bookkeeping) holding one of `needles`, as `table: row`. */
async function rowsHolding(dataSource: DataSource, needles: string[]): Promise<string[]> {
  const tables: { name: string }[] =
    dataSource.options.type === 'postgres'
      ? await dataSource.query(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
      : await dataSource.query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`);
  const found: string[] = [];
  for (const { name } of tables) {
    for (const row of await dataSource.query(`SELECT * FROM "${name}"`)) {
      const text = JSON.stringify(row, (_key, value) => (Buffer.isBuffer(value) ? value.toString('latin1') : value)).toLowerCase();
      if (needles.some((needle) => text.includes(needle.toLowerCase()))) found.push(`${name}: ${text.slice(0, 300)}`);
    }
  }
  return found;
}

/** Where in a file the needles' bytes occur (as UTF-8 and, for SQLite's UTF-16 text, not at all: the database is UTF-8). */
function occurrences(file: string, needles: string[]): Record<string, number> {
  if (!existsSync(file)) return {};
  const bytes = readFileSync(file);
  const counts: Record<string, number> = {};
  for (const needle of needles) {
    let count = 0;
    for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) count++;
    if (count) counts[needle] = count;
  }
  return counts;
}

describe('erasure leaves no trace (issue 31)', () => {
  let app: TestApp;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-erase-'));
  const file = join(dataDir, 'svc.sqlite');
  before(async () => {
    app = await startApp({ DATA_DIR: dataDir, SQLITE_FILE: file });
  });
  after(() => app.close());

  it('after users/data/delete no table holds her id, name or e-mail, nor (embedded) the database files', async () => {
    const key = await createKey(app);
    const call = agentFor(app, key);
    const organizationId = 'org-erase';
    const place = { organizationId, documentId: 'doc', createOrganization: true, createDocument: true };
    const zoe = ERASED;
    expectSuccess(await call('/v2/workspace/notificationconfig/update', { useNotificationService: true }));
    expectSuccess(await call('/v2/users/add', { organizationId, users: [{ ...zoe, team: 'red' }, BOB] }));
    // An update leaves the old row's bytes in free space unless deleted bytes are overwritten.
    expectSuccess(await call('/v2/users/update', { organizationId, users: [{ userId: zoe.userId, name: zoe.name, email: zoe.email, team: 'blue' }] }));
    expectSuccess(await call('/v2/users/add', { organizationId, documentId: 'doc', users: [{ userId: zoe.userId }, { userId: 'bob' }] }));
    expectSuccess(
      await call('/v2/auth/permissions/add', {
        user: { userId: zoe.userId },
        organizationId,
        context: { accessFields: ['team:red'] },
        permissions: { resources: [{ type: 'document', id: 'secret', organizationId, accessRole: 'viewer' }] },
      }),
    );
    expectSuccess(await call('/v2/organizations/usergroups/users/add', { organizationId, organizationUserGroupId: 'g', userIds: [zoe.userId, 'bob'] }));
    expectSuccess(await call('/v2/notifications/config/set', { organizationId, userIds: [zoe.userId], config: { email: 'NONE' } }));
    expectSuccess(await call('/v2/crdt/add', { organizationId, documentId: 'doc', editorId: 'e-zoe', type: 'text', data: 'hello', userId: zoe.userId }));
    expectSuccess(await call('/v2/presence/add', { organizationId, documentId: 'doc', users: [{ ...zoe, status: 'online' }, { userId: 'bob' }] }));
    expectSuccess(
      await call('/v2/activities/add', {
        organizationId,
        documentId: 'doc',
        activities: [
          { id: 'z-own', timestamp: 1, featureType: 'custom', actionType: 'task.done', targetEntityId: 't1', actionUser: zoe },
          { id: 'z-approve', timestamp: 2, featureType: 'comment', actionType: 'comment_annotation.approve', actionUser: zoe, entityData: { reasoning: 'ok' } },
          {
            id: 'b-mention',
            timestamp: 3,
            featureType: 'comment',
            actionType: 'comment.add',
            actionUser: BOB,
            entityData: { commentText: 'hey', taggedUserContacts: [{ userId: zoe.userId, contact: zoe }], involvedUserIds: [zoe.userId] },
          },
        ],
      }),
    );
    const events = { triggerActivities: true, triggerNotification: true };
    expectSuccess(
      await call('/v2/commentannotations/add', {
        ...place,
        commentAnnotations: [
          // Bob's restricted thread, visible to her, where he tags her and she answers.
          {
            annotationId: 't-bob',
            visibility: { type: 'restricted', userIds: [zoe.userId, 'bob'] },
            commentData: [
              { from: BOB, commentText: `look {{${zoe.userId}}}`, taggedUserContacts: [{ userId: zoe.userId, contact: zoe }], ...events },
              { from: zoe, commentText: 'on it', ...events },
            ],
          },
          { annotationId: 't-zoe', commentData: [{ from: zoe, commentText: 'mine', ...events }] },
        ],
      }),
    );
    // A file on her comment, its name and bytes naming her: row and blob go with the job.
    const form = new FormData();
    for (const [field, value] of Object.entries({ organizationId, documentId: 'doc', annotationId: 't-zoe', commentId: '1' })) form.append(field, value);
    form.append('file', new Blob([`notes by ${zoe.email}`], { type: 'text/plain' }), `${zoe.name}.txt`);
    const uploaded = await fetch(`http://127.0.0.1:${app.port}/v2/commentannotations/comments/attachments/add`, {
      method: 'POST',
      headers: key.headers,
      body: form,
    });
    assert.equal(uploaded.status, 200, await uploaded.clone().text());
    // Her reaction to Bob's comment: it goes, his comment stays.
    expectSuccess(
      await call('/v2/commentannotations/comments/reactions/add', {
        organizationId,
        documentId: 'doc',
        annotationId: 't-bob',
        commentId: 1,
        icon: '👍',
        from: zoe,
      }),
    );
    expectSuccess(
      await call('/v2/commentannotations/comments/add', {
        organizationId,
        documentId: 'doc',
        annotationId: 't-bob',
        commentData: [{ from: BOB, commentText: `thanks {{${zoe.userId}}}`, ...events }],
      }),
    );
    expectSuccess(
      await call('/v2/commentannotations/update', {
        organizationId,
        documentId: 'doc',
        annotationIds: ['t-bob'],
        updatedData: { status: { id: 'RESOLVED', name: 'Resolved', type: 'terminal' }, resolvedByUserId: zoe.userId },
        ...events,
      }),
    );
    for (const [notificationId, actionUser, notifyUsers] of [
      ['n-to-zoe', BOB, [zoe]],
      ['n-by-zoe', zoe, [BOB]],
    ] as const) {
      expectSuccess(
        await call('/v2/notifications/add', {
          ...place,
          notificationId,
          actionUser,
          notifyUsers,
          notifyAll: false,
          displayHeadlineMessageTemplate: 'hi',
          displayBodyMessage: 'body',
        }),
      );
    }
    assert.ok((await rowsHolding(app.dataSource, TRACES)).length > 10, 'the seed names her');

    const { jobId } = expectSuccess(await call('/v2/users/data/delete', { userIds: [zoe.userId] })).data;
    for (let waited = 0; ; waited += 50) {
      if (expectSuccess(await call('/v2/users/data/delete/status', { jobId })).data.isDeleteCompleted) break;
      assert.ok(waited < 20_000, 'the job did not complete');
      await sleep(50);
    }
    assert.deepEqual(await rowsHolding(app.dataSource, TRACES), []);
    const blobs = readdirSync(join(dataDir, 'attachments'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    assert.deepEqual(
      blobs.map((entry) => join(entry.parentPath, entry.name)).filter((path) => Object.keys(occurrences(path, TRACES)).length),
      [],
      'no blob holds her',
    );
    if (app.dataSource.options.type !== 'postgres') {
      // The log is emptied right after the job's last task commits, which the status may show first.
      for (let waited = 0; Object.keys(occurrences(`${file}-wal`, TRACES)).length && waited < 2000; waited += 50) await sleep(50);
      for (const path of [file, `${file}-wal`]) assert.deepEqual(occurrences(path, TRACES), {}, path);
    }
    // Bob's thread stays, without her.
    const [thread] = expectSuccess(await call('/v2/commentannotations/get', { organizationId, annotationIds: ['t-bob'] })).data;
    assert.deepEqual(thread.visibilityConfig.userIds, ['bob']);
    assert.deepEqual(
      thread.comments.map((c: { commentText: string }) => c.commentText),
      ['look @(deleted user)', 'thanks @(deleted user)'],
    );
    assert.deepEqual(thread.comments[0].reactionAnnotations, [], 'her reaction is gone, not left anonymous');
  });
});
