import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DocumentMoves } from '../src/directory/document-moves.js';
import { eventually, startApp, type TestApp } from './helpers/app.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';

const ORG = 'org-mig';
const ana = { userId: 'ana', name: 'Ana', email: 'ana@example.com' };
const bob = { userId: 'bob', name: 'Bob', email: 'bob@example.com' };
/** A target id the failing observer below refuses, after every real owner has moved its rows. */
const EXPLODING = 'doc-explodes';

type Call = ReturnType<typeof agentFor>;

describe('documents migrate (issue 33)', () => {
  let app: TestApp;
  let key: TestKey;
  let other: TestKey;
  let call: Call;
  let otherCall: Call;

  before(async () => {
    // The delivery worker writes the inbox entries of notifying comments.
    app = await startApp({ ATTACHMENT_TYPES: 'text/plain', DELIVERY_CONCURRENCY: '4' });
    // Registered last, so it runs after every owner moved its rows: its failure must undo them all.
    app.app.get(DocumentMoves).observers.add({
      documentMoved: async (_manager, _apiKeyId, move) => {
        if (move.to === EXPLODING) throw new Error('a later step of the migration failed');
      },
    });
    key = await createKey(app);
    other = await createKey(app);
    call = agentFor(app, key);
    otherCall = agentFor(app, other);
    for (const c of [call, otherCall]) expectSuccess(await c('/v2/workspace/notificationconfig/update', { useNotificationService: true }));
  });
  after(() => app.close());

  const migrate = (c: Call, documentId: string, newDocumentId: string, organizationId = ORG) =>
    c('/v2/organizations/documents/migrate', { organizationId, documentId, newDocumentId });
  const status = (c: Call, migrationId: string, organizationId = ORG) => c('/v2/organizations/documents/migrate/status', { organizationId, migrationId });

  async function upload(k: TestKey, documentId: string, annotationId: string): Promise<number> {
    const form = new FormData();
    for (const [field, value] of Object.entries({ organizationId: ORG, documentId, annotationId, commentId: '1' })) form.append(field, value);
    form.append('file', new Blob(['attached words'], { type: 'text/plain' }), 'notes.txt');
    const response = await fetch(`${app.url}/v2/commentannotations/comments/attachments/add`, { method: 'POST', headers: k.headers, body: form });
    const body = (await response.json()) as any;
    assert.equal(response.status, 200, JSON.stringify(body));
    return body.result.data.attachmentId as number;
  }

  /**
   * A document with something in every table that keeps rows about documents: a grant (users
   * add), a thread mentioning bob with activities and an inbox entry, a custom activity and a
   * judgment, an editor, an attachment, presence and a notification preference.
   */
  async function populate(c: Call, k: TestKey, documentId: string, text = 'first words'): Promise<void> {
    expectSuccess(
      await c('/v2/organizations/documents/add', {
        organizationId: ORG,
        createOrganization: true,
        documents: [{ documentId, documentName: `Name of ${documentId}`, owner: 'team-a' }],
      }),
    );
    expectSuccess(await c('/v2/users/add', { organizationId: ORG, documentId, users: [ana, bob] }));
    expectSuccess(
      await c('/v2/commentannotations/add', {
        organizationId: ORG,
        documentId,
        commentAnnotations: [
          {
            annotationId: `${documentId}-t1`,
            commentData: [
              {
                commentText: 'Hey {{bob}}, look',
                taggedUserContacts: [{ userId: 'bob', contact: bob }],
                from: ana,
                triggerActivities: true,
                triggerNotification: true,
              },
            ],
          },
        ],
      }),
    );
    // Its inbox entry comes from the delivery worker, a moment after the answer.
    await eventually(
      async () => expectSuccess(await c('/v2/notifications/get', { organizationId: ORG, documentId })).data as unknown[],
      (entries) => entries.length > 0,
    );
    expectSuccess(
      await c('/v2/activities/add', {
        organizationId: ORG,
        documentId,
        // Two judgments: suggestions need two to recommend.
        activities: ['rev1', 'rev2'].map((reviewer) => ({
          id: `${documentId}-judged-${reviewer}`,
          featureType: 'comment',
          actionType: 'comment_annotation.suggestion_reject',
          actionUser: { userId: reviewer },
          entityData: { reasoning: 'images are missing alt text' },
        })),
      }),
    );
    expectSuccess(await c('/v2/crdt/add', { organizationId: ORG, documentId, editorId: 'body', type: 'text', data: text }));
    await upload(k, documentId, `${documentId}-t1`);
    expectSuccess(await c('/v2/presence/add', { organizationId: ORG, documentId, users: [{ userId: 'ana', status: 'online' }] }));
    expectSuccess(
      await c('/v2/notifications/config/set', { organizationId: ORG, userIds: ['bob'], documentIds: [documentId], config: { inbox: 'NONE', email: 'ALL' } }),
    );
  }

  /** What the API answers about a document, read through every owner's operation. */
  async function observe(c: Call, documentId: string) {
    const documents = expectSuccess(await c('/v2/organizations/documents/get', { organizationId: ORG, documentIds: [documentId] }));
    const threads = expectSuccess(await c('/v2/commentannotations/get', { organizationId: ORG, documentId })).data as any[];
    const comments = threads.length
      ? (expectSuccess(await c('/v2/commentannotations/comments/get', { organizationId: ORG, documentId, annotationId: threads[0].annotationId }))
          .data as any[])
      : [];
    // Download links are made at each read (a fresh expiry): fetched apart, never compared.
    const attachmentIds = comments.flatMap((comment) => comment.attachments.map((attachment: { attachmentId: number }) => attachment.attachmentId));
    const links = attachmentIds.length
      ? (expectSuccess(await c('/v2/commentannotations/comments/attachments/get', { attachmentIds })).data as { url: string }[]).map((link) => link.url)
      : [];
    const inbox = expectSuccess(await c('/v2/notifications/get', { organizationId: ORG, documentId })).data as any[];
    const activities = expectSuccess(await c('/v2/activities/get', { organizationId: ORG, documentId })).data as any[];
    const editors = expectSuccess(await c('/v2/crdt/get', { organizationId: ORG, documentId })).data as any[];
    const presence = expectSuccess(await c('/v2/presence/get', { organizationId: ORG, documentId })).data as any[];
    const judgments = expectSuccess(await c('/v2/memory/judgments/query', { organizationId: ORG, documentId })).data as any[];
    const preference = (
      expectSuccess(await c('/v2/notifications/config/get', { organizationId: ORG, userId: 'bob', documentIds: [documentId] })).data as any[]
    ).find((entry) => entry.metadata.documentId === documentId);
    const permissions = await c('/v2/auth/permissions/get', { organizationId: ORG, userIds: ['bob'], documentIds: [documentId] });
    return {
      documents,
      threads,
      comments,
      links,
      inbox,
      activities,
      editors,
      presence,
      judgments,
      preference,
      permissions: { status: permissions.status, body: permissions.body },
    };
  }

  /** Rows of the key that still name `documentId`, per table, found by scanning every table with a `document_id` column (and grants). */
  async function rowsNaming(k: TestKey, documentId: string): Promise<Record<string, number>> {
    const postgres = app.dataSource.options.type === 'postgres';
    const tables: string[] = postgres
      ? (
          await app.dataSource.query(
            "SELECT table_name AS name FROM information_schema.columns WHERE column_name = 'document_id' AND table_schema = current_schema()",
          )
        ).map((row: { name: string }) => row.name)
      : (
          await app.dataSource.query(
            "SELECT m.name AS name FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'document_id'",
          )
        ).map((row: { name: string }) => row.name);
    // The migration's own record names the old id on purpose.
    const scanned = tables.filter((table) => table !== 'document_migration');
    assert.ok(scanned.length >= 9, `tables with a document_id: ${scanned.join(', ')}`);
    const counts: Record<string, number> = {};
    const p = (n: number) => (postgres ? `$${n}` : '?');
    for (const table of scanned) {
      const [row] = await app.dataSource.query(
        `SELECT COUNT(*) AS n FROM ${table} WHERE api_key_id = ${p(1)} AND organization_id = ${p(2)} AND document_id = ${p(3)}`,
        [k.apiKey, ORG, documentId],
      );
      if (Number(row.n)) counts[table] = Number(row.n);
    }
    for (const [table, where] of [
      ['document', 'id'],
      ['access_grant', "resource_type = 'document' AND resource_id"],
    ] as const) {
      const [row] = await app.dataSource.query(
        `SELECT COUNT(*) AS n FROM ${table} WHERE api_key_id = ${p(1)} AND organization_id = ${p(2)} AND ${where} = ${p(3)}`,
        [k.apiKey, ORG, documentId],
      );
      if (Number(row.n)) counts[table] = Number(row.n);
    }
    return counts;
  }

  it('moves the document and every row about it to the new id, and the status answers completed', async () => {
    await populate(call, key, 'doc-old');
    // A second key's document of the same ids: never touched.
    await populate(otherCall, other, 'doc-old', 'other key words');
    await populate(otherCall, other, 'doc-new', 'other key target');
    const before = await observe(call, 'doc-old');
    const otherBefore = { old: await observe(otherCall, 'doc-old'), new: await observe(otherCall, 'doc-new') };
    const rowsBefore = await rowsNaming(key, 'doc-old');

    const started = expectSuccess(await migrate(call, 'doc-old', 'doc-new'), 'Document migration started successfully.');
    assert.deepEqual(Object.keys(started.data), ['migrationId']);
    const { migrationId } = started.data as { migrationId: string };
    assert.deepEqual(expectSuccess(await status(call, migrationId), 'Migration status retrieved successfully.').data, { migrationId, status: 'completed' });

    // Every row that named the old id now names the new one, and none is left behind.
    assert.deepEqual(await rowsNaming(key, 'doc-old'), {});
    assert.deepEqual(await rowsNaming(key, 'doc-new'), rowsBefore);

    const moved = await observe(call, 'doc-new');
    const [document] = moved.documents.data as any[];
    assert.equal(document.id, 'doc-new');
    assert.equal(document.documentName, 'Name of doc-old');
    assert.equal(document.owner, 'team-a');
    assert.equal(document.createdAt, (before.documents.data as any[])[0].createdAt);

    assert.equal(moved.threads.length, 1);
    assert.equal(moved.threads[0].annotationId, 'doc-old-t1');
    assert.equal(moved.threads[0].metadata.documentId, 'doc-new');
    assert.equal(moved.threads[0].annotationNumber, before.threads[0].annotationNumber);
    assert.equal(moved.comments[0].commentText, 'Hey {{bob}}, look');
    assert.equal(moved.comments[0].attachments.length, 1);
    assert.equal(moved.comments[0].attachments[0].name, 'notes.txt');
    const download = await fetch(moved.links[0]!);
    assert.equal(download.status, 200);
    assert.equal(await download.text(), 'attached words');

    assert.equal(moved.inbox.length, before.inbox.length);
    assert.ok(moved.inbox.length >= 1);
    for (const entry of moved.inbox) assert.equal(entry.metadata.documentId, 'doc-new');
    assert.deepEqual(
      moved.activities.map((a) => a.id),
      before.activities.map((a) => a.id),
    );
    assert.ok(moved.activities.length >= 3);
    for (const activity of moved.activities) assert.equal(activity.metadata.documentId, 'doc-new');
    assert.equal(moved.editors.length, 1);
    assert.equal(moved.editors[0].id, 'body');
    assert.equal(moved.editors[0].data, 'first words');
    assert.deepEqual(
      moved.presence.map((p) => p.userId),
      ['ana'],
    );
    assert.equal(moved.judgments.length, 2);
    for (const judgment of moved.judgments) assert.equal(judgment.documentId, 'doc-new');
    assert.deepEqual(moved.preference.config, { inbox: 'NONE', email: 'ALL', chat: before.preference.config.chat });
    assert.equal(expectSuccess(moved.permissions).data.bob.documents['doc-new'].accessRole, 'editor');
    // Suggestions scoped to the new id draw on the moved judgment (the full-text index's scope moved too).
    const suggestion = await call('/v2/memory/suggest', { query: 'alt text on images', organizationId: ORG, documentId: 'doc-new' });
    assert.equal(suggestion.body.result.primary.scope, 'document');

    // The old id names nothing any more.
    const gone = await observe(call, 'doc-old');
    assert.deepEqual(gone.documents.data, []);
    assert.deepEqual(Object.keys(gone.documents.notFound), ['doc-old']);
    assert.deepEqual([gone.threads, gone.inbox, gone.activities, gone.editors, gone.presence, gone.judgments], [[], [], [], [], [], []]);
    expectError(gone.permissions, 404, 'NOT_FOUND', 'Folder or document does not exist');

    // The other key's documents of both ids are exactly as they were.
    const unlinked = ({ links: _links, ...rest }: Awaited<ReturnType<typeof observe>>) => rest;
    assert.deepEqual(unlinked(await observe(otherCall, 'doc-old')), unlinked(otherBefore.old));
    assert.deepEqual(unlinked(await observe(otherCall, 'doc-new')), unlinked(otherBefore.new));
    // And its caller cannot see the migration.
    expectError(await status(otherCall, migrationId), 404, 'NOT_FOUND', 'Migration not found.');
  });

  it('a failure after the owners moved their rows rolls every one of them back', async () => {
    await populate(call, key, 'doc-kept');
    const before = await observe(call, 'doc-kept');
    const rowsBefore = await rowsNaming(key, 'doc-kept');
    const failed = await migrate(call, 'doc-kept', EXPLODING);
    expectError(failed, 500, 'INTERNAL');
    assert.deepEqual(await rowsNaming(key, EXPLODING), {});
    assert.deepEqual(await rowsNaming(key, 'doc-kept'), rowsBefore);
    const { links: _linksAfter, ...after } = await observe(call, 'doc-kept');
    const { links: _linksBefore, ...expected } = before;
    assert.deepEqual(after, expected);
  });

  it('refuses a target that exists, a source that does not, and the same id, changing nothing', async () => {
    await populate(call, key, 'doc-a');
    expectSuccess(await call('/v2/organizations/documents/add', { organizationId: ORG, documents: [{ documentId: 'doc-b' }] }));
    const rowsBefore = await rowsNaming(key, 'doc-a');
    expectError(await migrate(call, 'doc-a', 'doc-b'), 409, 'ALREADY_EXISTS', 'Document already exists');
    expectError(await migrate(call, 'doc-missing', 'doc-c'), 404, 'NOT_FOUND', 'Document does not exist');
    expectError(await migrate(call, 'doc-a', 'doc-a'), 400, 'INVALID_ARGUMENT', 'data.newDocumentId must differ from data.documentId');
    expectError(await migrate(call, 'doc-a', 'doc-c', 'org-missing'), 404, 'NOT_FOUND', 'Organization does not exist');
    // Another key's document is as unknown as a missing one (contract 1.4).
    expectError(await migrate(otherCall, 'doc-a', 'doc-z'), 404, 'NOT_FOUND', 'Document does not exist');
    assert.deepEqual(await rowsNaming(key, 'doc-a'), rowsBefore);
    assert.deepEqual(await rowsNaming(key, 'doc-c'), {});
  });

  it('concurrent identical migrations: exactly one succeeds, and the document moves once', async () => {
    await populate(call, key, 'doc-race');
    const rowsBefore = await rowsNaming(key, 'doc-race');
    const answers = await Promise.all(Array.from({ length: 6 }, () => migrate(call, 'doc-race', 'doc-raced')));
    const won = answers.filter((answer) => answer.status === 200);
    assert.equal(won.length, 1, JSON.stringify(answers.map((a) => a.body)));
    for (const answer of answers.filter((a) => a.status !== 200)) expectError(answer, 404, 'NOT_FOUND', 'Document does not exist');
    assert.deepEqual(await rowsNaming(key, 'doc-race'), {});
    assert.deepEqual(await rowsNaming(key, 'doc-raced'), rowsBefore);
    // Two migrations of one document to different ids take turns: one moves it, the other finds it gone.
    const crossing = await Promise.all([migrate(call, 'doc-raced', 'doc-race'), migrate(call, 'doc-raced', 'doc-race-2')]);
    assert.deepEqual(crossing.map((a) => a.status).sort(), [200, 404]);
    const target = crossing[0]!.status === 200 ? 'doc-race' : 'doc-race-2';
    assert.deepEqual(await rowsNaming(key, target), rowsBefore);
  });

  it('answers bad input with the field named, and unknown migrations with NOT_FOUND', async () => {
    expectError(await call('/v2/organizations/documents/migrate', { organizationId: ORG, documentId: 'x' }), 400, 'INVALID_ARGUMENT', /data\.newDocumentId/);
    expectError(
      await call('/v2/organizations/documents/migrate', { organizationId: ORG, documentId: 7, newDocumentId: 'y' }),
      400,
      'INVALID_ARGUMENT',
      /data\.documentId/,
    );
    expectError(
      await call('/v2/organizations/documents/migrate', { organizationId: ORG, documentId: 'x', newDocumentId: 'y', extra: true }),
      400,
      'INVALID_ARGUMENT',
      'Unknown field: data.extra',
    );
    expectError(await call('/v2/organizations/documents/migrate/status', { organizationId: ORG }), 400, 'INVALID_ARGUMENT', /data\.migrationId/);
    expectError(await status(call, 'mig_unknown'), 404, 'NOT_FOUND', 'Migration not found.');
    // A migration is found only in its own organization.
    await populate(call, key, 'doc-org');
    const { migrationId } = expectSuccess(await migrate(call, 'doc-org', 'doc-org-2')).data as { migrationId: string };
    expectError(await status(call, migrationId, 'org-elsewhere'), 404, 'NOT_FOUND', 'Migration not found.');
  });
});
