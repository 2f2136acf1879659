import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type request from 'supertest';
import { ApiError } from '../src/common/errors.js';
import { requestHashText } from '../src/common/idempotency.js';
import { IN_FLIGHT_LEASE_MS } from '../src/common/idempotency-store.js';
import { Secrets } from '../src/common/secrets.js';
import { OrganizationsService } from '../src/directory/organizations.service.js';
import { ManualClock, startApp, type TestApp } from './helpers/app.js';
import { createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';

const HOUR = 60 * 60 * 1000;
const KEY_PROBLEM = 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.';
const ana = { userId: 'ana', name: 'Ana', email: 'ana@example.com' };

/**
 * `Idempotency-Key` (docs/reference/conventions.md): a repeat gets the first answer without the
 * operation running again, scoped by credential and path, for IDEMPOTENCY_RETENTION_HOURS.
 */
describe('Idempotency-Key', () => {
  const clock = new ManualClock();
  let app: TestApp;
  let key: TestKey;
  let other: TestKey;
  before(async () => {
    app = await startApp({}, { clock });
    key = await createKey(app);
    other = await createKey(app);
  });
  after(() => app.close());

  const send = (path: string, data: unknown, as: TestKey = key, idempotencyKey?: string) =>
    app.post(path, { data }, idempotencyKey === undefined ? as.headers : { ...as.headers, 'Idempotency-Key': idempotencyKey });
  const replayed = (response: request.Response) => response.headers['idempotent-replayed'];
  const rows = async () => Number((await app.dataSource.query('SELECT count(*) AS n FROM idempotent_request'))[0].n);

  /** A new thread of `org`/`doc` with one comment, its id. */
  async function thread(org: string, doc: string, as: TestKey = key): Promise<string> {
    expectSuccess(await send('/v2/organizations/add', { organizations: [{ organizationId: org, organizationName: org }] }, as));
    const added = expectSuccess(
      await send(
        '/v2/commentannotations/add',
        { organizationId: org, documentId: doc, createDocument: true, commentAnnotations: [{ commentData: [{ commentText: 'first', from: ana }] }] },
        as,
      ),
    );
    return Object.values(added.data as Record<string, { annotationId: string }>)[0]!.annotationId;
  }
  const reply = (org: string, doc: string, annotationId: string, text = 'reply') => ({
    organizationId: org,
    documentId: doc,
    annotationId,
    commentData: [{ commentText: text, from: ana }],
  });
  /** The ids of the thread's comments, as stored. */
  async function commentIds(org: string, doc: string, annotationId: string, as: TestKey = key): Promise<number[]> {
    const page = expectSuccess(await send('/v2/commentannotations/get', { organizationId: org, documentId: doc, annotationIds: [annotationId] }, as));
    return (page.data[0].comments as { commentId: number }[]).map((comment) => comment.commentId);
  }

  it('a repeat gets the very first answer, marked replayed, and the comment is added once', async () => {
    const annotationId = await thread('org-replay', 'doc-1');
    const idem = randomUUID();
    const first = await send('/v2/commentannotations/comments/add', reply('org-replay', 'doc-1', annotationId), key, idem);
    assert.deepEqual(expectSuccess(first).data, [2]);
    assert.equal(replayed(first), undefined);
    const again = await send('/v2/commentannotations/comments/add', reply('org-replay', 'doc-1', annotationId), key, idem);
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text, 'the same bytes');
    assert.equal(replayed(again), 'true');
    assert.match(String(again.headers['content-type']), /^application\/json; charset=utf-8$/i);
    assert.deepEqual(await commentIds('org-replay', 'doc-1', annotationId), [1, 2]);
    // The next comment is the third: the repeat wrote nothing.
    assert.deepEqual(expectSuccess(await send('/v2/commentannotations/comments/add', reply('org-replay', 'doc-1', annotationId))).data, [3]);
  });

  it('keys in another order are the same body; a different body is 400 FAILED_PRECONDITION and runs nothing', async () => {
    const idem = randomUUID();
    const organizations = [{ organizationId: 'org-body', organizationName: 'Body' }];
    const first = await send('/v2/organizations/add', { organizations }, key, idem);
    expectSuccess(first);
    const reordered = await send('/v2/organizations/add', { organizations: [{ organizationName: 'Body', organizationId: 'org-body' }] }, key, idem);
    assert.equal(replayed(reordered), 'true');
    assert.equal(reordered.text, first.text);
    const changed = await send('/v2/organizations/add', { organizations: [{ organizationId: 'org-body-2', organizationName: 'Other' }] }, key, idem);
    expectError(
      changed,
      400,
      'FAILED_PRECONDITION',
      'This Idempotency-Key was already used with another request body on this operation; send a new key for a new request.',
    );
    assert.equal(replayed(changed), undefined);
    const found = expectSuccess(await send('/v2/organizations/get', { organizationIds: ['org-body', 'org-body-2'] })).data;
    assert.deepEqual(
      found.map((organization: { id: string }) => organization.id),
      ['org-body'],
    );
  });

  it('10 concurrent duplicates run the operation once: the others get its answer or 409', async () => {
    const annotationId = await thread('org-race', 'doc-1');
    const idem = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => send('/v2/commentannotations/comments/add', reply('org-race', 'doc-1', annotationId), key, idem)),
    );
    const succeeded = answers.filter((answer) => answer.status === 200);
    assert.ok(succeeded.length >= 1, JSON.stringify(answers.map((answer) => answer.body)));
    for (const answer of succeeded) assert.deepEqual(answer.body.result.data, [2]);
    assert.equal(succeeded.filter((answer) => replayed(answer) === undefined).length, 1, 'exactly one answer ran the operation');
    for (const answer of answers.filter((answer) => answer.status !== 200)) {
      expectError(answer, 409, 'ABORTED', 'A request with this Idempotency-Key is still being processed; retry once it has been answered.');
      assert.equal(answer.headers['retry-after'], '1');
    }
    assert.deepEqual(await commentIds('org-race', 'doc-1', annotationId), [1, 2]);
    // Once answered, every repeat gets the answer.
    const later = await send('/v2/commentannotations/comments/add', reply('org-race', 'doc-1', annotationId), key, idem);
    assert.equal(replayed(later), 'true');
    assert.deepEqual(later.body.result.data, [2]);
  });

  it('another API key, or another path, with the same key and body runs on its own', async () => {
    const idem = randomUUID();
    const organizations = [{ organizationId: 'org-shared', organizationName: 'Shared' }];
    const mine = await send('/v2/organizations/add', { organizations }, key, idem);
    const theirs = await send('/v2/organizations/add', { organizations }, other, idem);
    expectSuccess(mine);
    expectSuccess(theirs);
    assert.equal(replayed(theirs), undefined);
    assert.equal(expectSuccess(await send('/v2/organizations/get', { organizationIds: ['org-shared'] }, other)).data[0].id, 'org-shared');
    // upstream's v1 path of the same operation is another path: it runs (and updates the name).
    const v1 = await send('/v1/organizations/add', { organizations: [{ organizationId: 'org-shared', organizationName: 'Renamed' }] }, key, idem);
    expectSuccess(v1);
    assert.equal(replayed(v1), undefined);
    const users = await send('/v2/users/add', { organizationId: 'org-shared', users: [ana] }, key, idem);
    expectSuccess(users);
    assert.equal(replayed(users), undefined);
    assert.equal(expectSuccess(await send('/v2/organizations/get', { organizationIds: ['org-shared'] })).data[0].organizationName, 'Renamed');
  });

  it('a workspace operation is scoped by its workspace: a repeated key create makes one key', async () => {
    const idem = randomUUID();
    const create = (as: TestKey) =>
      app.post(
        '/v2/workspace/apikey/create',
        { data: { ownerEmail: 'dev@example.com', type: 'testing', createAuthToken: true } },
        { ...as.workspaceHeaders, 'Idempotency-Key': idem },
      );
    const first = expectSuccess(await create(key)).data;
    const again = await create(key);
    assert.equal(replayed(again), 'true');
    assert.deepEqual(again.body.result.data, first);
    const listed = expectSuccess(await app.post('/v2/workspace/apikeys/get', { data: {} }, key.workspaceHeaders)).data as { apiKey: string }[];
    assert.equal(listed.length, 2);
    // Another workspace's same key creates its own.
    const theirs = await create(other);
    assert.equal(replayed(theirs), undefined);
    assert.notEqual(expectSuccess(theirs).data.apiKey, first.apiKey);
    // The answers are kept encrypted: the new key's auth token is nowhere in the table.
    const stored = (await app.dataSource.query('SELECT answer FROM idempotent_request')) as { answer: string | null }[];
    assert.ok(stored.length > 0);
    for (const { answer } of stored) {
      assert.ok(answer === null || answer.startsWith('v1.'), 'an encrypted answer');
      assert.ok(!answer?.includes(first.authToken), 'the token is not stored in clear');
    }
  });

  it('errors the request caused are kept; faults and ABORTED release the key', async () => {
    const organizations = OrganizationsService.prototype;
    const original = organizations.add;
    const failOnce = (error: Error) => {
      organizations.add = function () {
        organizations.add = original;
        return Promise.reject(error);
      };
    };
    const body = (id: string) => ({ organizations: [{ organizationId: id, organizationName: id }] });
    try {
      // A fault: 500, and the retry runs.
      let idem = randomUUID();
      failOnce(new Error('boom'));
      expectError(await send('/v2/organizations/add', body('org-fault'), key, idem), 500, 'INTERNAL');
      const retried = await send('/v2/organizations/add', body('org-fault'), key, idem);
      expectSuccess(retried);
      assert.equal(replayed(retried), undefined);
      // ABORTED (a concurrent change won) asks for a retry: released too.
      idem = randomUUID();
      failOnce(new ApiError('ABORTED', 'Try again.'));
      expectError(await send('/v2/organizations/add', body('org-aborted'), key, idem), 409, 'ABORTED');
      assert.equal(replayed(await send('/v2/organizations/add', body('org-aborted'), key, idem)), undefined);
      // A refusal is the request's answer: kept, and given again though its cause is gone.
      idem = randomUUID();
      failOnce(new ApiError('PERMISSION_DENIED', 'Not yours.', { id: 'x' }));
      const refused = await send('/v2/organizations/add', body('org-refused'), key, idem);
      expectError(refused, 403, 'PERMISSION_DENIED', 'Not yours.');
      const again = await send('/v2/organizations/add', body('org-refused'), key, idem);
      expectError(again, 403, 'PERMISSION_DENIED', 'Not yours.');
      assert.equal(again.text, refused.text);
      assert.equal(replayed(again), 'true');
      assert.deepEqual(expectSuccess(await send('/v2/organizations/get', { organizationIds: ['org-refused'] })).data, []);
    } finally {
      organizations.add = original;
    }
    // A request refused before its operation starts (its data fails validation) claims nothing,
    // as with Stripe: a repeat is refused anew, the same way, and the key then serves a good body.
    const idem = randomUUID();
    const invalid = await send('/v2/organizations/add', { organizations: 'nope' }, key, idem);
    assert.equal(invalid.status, 400);
    const invalidAgain = await send('/v2/organizations/add', { organizations: 'nope' }, key, idem);
    assert.equal(replayed(invalidAgain), undefined);
    assert.equal(invalidAgain.text, invalid.text);
    expectSuccess(await send('/v2/organizations/add', body('org-after-invalid'), key, idem));
    assert.equal(replayed(await send('/v2/organizations/add', body('org-after-invalid'), key, idem)), 'true');
  });

  it('an answer is kept for 24 hours, then the key runs again; expired rows are pruned', async () => {
    const annotationId = await thread('org-expiry', 'doc-1');
    const idem = randomUUID();
    const add = () => send('/v2/commentannotations/comments/add', reply('org-expiry', 'doc-1', annotationId), key, idem);
    assert.deepEqual(expectSuccess(await add()).data, [2]);
    clock.advance(24 * HOUR - 1000);
    const kept = await add();
    assert.equal(replayed(kept), 'true');
    assert.deepEqual(kept.body.result.data, [2]);
    clock.advance(2000);
    const ranAgain = await add();
    assert.equal(replayed(ranAgain), undefined);
    assert.deepEqual(expectSuccess(ranAgain).data, [3]);
    // Every other row is past its 24 hours now: each new key deletes a batch of 20 of them.
    const expired = async () =>
      ((await app.dataSource.query('SELECT expires_at FROM idempotent_request')) as { expires_at: string }[]).filter(
        (row) => Number(row.expires_at) <= clock.now(),
      ).length;
    let left = await expired();
    assert.ok(left > 5, `${left} expired rows`);
    while (left > 0) {
      expectSuccess(await send('/v2/organizations/get', { organizationIds: ['x'] }, key, randomUUID()));
      const now = await expired();
      assert.equal(now, Math.max(0, left - 20), 'a new key deletes a batch of expired rows');
      left = now;
    }
    const remaining = (await app.dataSource.query('SELECT idempotency_key FROM idempotent_request')) as { idempotency_key: string }[];
    assert.ok(remaining.some((row) => row.idempotency_key === idem));
  });

  it('a request in flight past its lease (its instance died) may run again', async () => {
    const idem = randomUUID();
    const path = '/v2/organizations/add';
    const data = { organizations: [{ organizationId: 'org-lease', organizationName: 'Lease' }] };
    // A claim whose request never finished, as a dead instance leaves it.
    const hash = app.app.get(Secrets).lookupHash(requestHashText({ data })!);
    const placeholders = app.config.dialect === 'postgres' ? '$1, $2, $3, $4, $5, NULL, NULL, $6, $7' : '?, ?, ?, ?, ?, NULL, NULL, ?, ?';
    await app.dataSource.query(`INSERT INTO idempotent_request VALUES (${placeholders})`, [
      `apiKey:${key.apiKey}`,
      path,
      idem,
      hash,
      'dead',
      clock.now(),
      clock.now() + IN_FLIGHT_LEASE_MS,
    ]);
    expectError(await send(path, data, key, idem), 409, 'ABORTED');
    assert.deepEqual(expectSuccess(await send('/v2/organizations/get', { organizationIds: ['org-lease'] })).data, []);
    clock.advance(IN_FLIGHT_LEASE_MS + 1);
    const ran = await send(path, data, key, idem);
    expectSuccess(ran);
    assert.equal(replayed(ran), undefined);
    assert.equal(replayed(await send(path, data, key, idem)), 'true');
  });

  it('without the header nothing changes and nothing is kept', async () => {
    const annotationId = await thread('org-plain', 'doc-1');
    const before = await rows();
    const first = await send('/v2/commentannotations/comments/add', reply('org-plain', 'doc-1', annotationId));
    const second = await send('/v2/commentannotations/comments/add', reply('org-plain', 'doc-1', annotationId));
    assert.deepEqual([expectSuccess(first).data, expectSuccess(second).data], [[2], [3]]);
    assert.equal(replayed(second), undefined);
    assert.equal(await rows(), before);
  });

  it('a bad key is 400 naming the header, on every operation', async () => {
    const tooLong = 'k'.repeat(256);
    for (const bad of ['', tooLong, 'clé', 'tab\there']) {
      expectError(await send('/v2/organizations/get', {}, key, bad), 400, 'INVALID_ARGUMENT', KEY_PROBLEM);
    }
    expectError(
      await app.post('/v2/workspace/create', { data: { ownerEmail: 'x@example.com' } }, { 'Idempotency-Key': tooLong }),
      400,
      'INVALID_ARGUMENT',
      KEY_PROBLEM,
    );
    expectSuccess(await send('/v2/organizations/get', {}, key, 'k'.repeat(255)));
    expectSuccess(await send('/v2/organizations/get', {}, key, 'with spaces and "quotes" ~!'));
  });

  it('public operations accept a key but keep nothing: no credential to scope it by', async () => {
    const idem = randomUUID();
    const before = await rows();
    const ownerEmail = `idem.${randomUUID()}@example.com`;
    const first = expectSuccess(await app.post('/v2/workspace/create', { data: { ownerEmail } }, { 'Idempotency-Key': idem })).data;
    const second = await app.post('/v2/workspace/create', { data: { ownerEmail } }, { 'Idempotency-Key': idem });
    assert.equal(replayed(second), undefined);
    assert.notEqual(expectSuccess(second).data.id, first.id);
    assert.equal(await rows(), before);
  });

  it('the OpenAPI document declares the header on every POST operation', async () => {
    const document = (await app.get('/docs/openapi.json')).body as {
      paths: Record<string, { post?: { parameters?: { $ref?: string }[]; responses: Record<string, unknown> } }>;
      components: { parameters: Record<string, { name: string; in: string }> };
    };
    const posts = Object.entries(document.paths).filter(([, item]) => item.post);
    assert.ok(posts.length > 100);
    for (const [path, { post }] of posts) {
      assert.ok(
        post!.parameters?.some((parameter) => {
          const declared = document.components.parameters[parameter.$ref?.replace('#/components/parameters/', '') ?? ''];
          return declared?.name === 'Idempotency-Key' && declared.in === 'header';
        }),
        `${path} declares Idempotency-Key`,
      );
    }
    const add = document.paths['/v2/organizations/add']!.post!;
    const examples = (status: string) =>
      Object.keys((add.responses[status] as { content?: Record<string, { examples?: object }> }).content?.['application/json']?.examples ?? {});
    assert.ok(examples('409').includes('Idempotency-Key: ABORTED') && examples('400').includes('Idempotency-Key: FAILED_PRECONDITION'));
    assert.deepEqual(add.parameters, [{ $ref: '#/components/parameters/IdempotencyKey' }]);
    const create = document.paths['/v2/workspace/create']!.post!;
    assert.equal(create.responses['409'], undefined);
    assert.deepEqual(create.parameters, [{ $ref: '#/components/parameters/IdempotencyKeyChecked' }]);
  });
});
