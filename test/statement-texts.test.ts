import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { countQueries } from './helpers/query-counter.js';
import { expectSuccess, withKeyedApp } from './factories/workspace.js';

/** An epoch-millisecond time written into a statement's text (2017 to 2033). */
const CLOCK_IN_TEXT = /\b1[5-9]\d{11}\b/;

/**
 * A statement's text must not change with the time: TypeORM writes numbers into the text of an
 * SQLite statement (its driver's `escapeQueryWithParameters`), so a TypeORM write of a row's
 * timestamps was a new text on every call, prepared anew (0.4-4 ms each on a slow machine) and
 * pushing the statements TypeORM keeps (a hundred, oldest out first) out of its cache. Activities
 * add ran two such inserts a request (its organization and document, made when missing): at 500
 * adds/s their deliveries arrived 3 s after the answer instead of 6 ms. The everyday writes
 * below, each twice (the clock moves between), send only texts without a time in them.
 */
describe('statement texts do not carry the time', () => {
  const keyed = withKeyedApp();
  const call = (path: string, data: unknown) => keyed.call(path, data);
  before(async () => {
    expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: 'texts-comments', organizationName: 'Texts' }] }));
  });

  const writes: { name: string; run: (n: number) => Promise<unknown> }[] = [
    {
      name: 'activities add, organization and document made when missing',
      run: (n) =>
        call('/v2/activities/add', {
          organizationId: `texts-org-${n}`,
          documentId: `texts-doc-${n}`,
          activities: [{ featureType: 'comment', actionType: 'comment.add', actionUser: { userId: 'ana' }, targetEntityId: `t-${n}` }],
        }),
    },
    {
      name: 'crdt add on a new document',
      run: (n) => call('/v2/crdt/add', { organizationId: 'texts-crdt', documentId: `texts-crdt-${n}`, editorId: 'e1', data: 'hello', type: 'text' }),
    },
    {
      name: 'users add with the organization made',
      run: (n) => call('/v2/users/add', { organizationId: `texts-users-${n}`, createOrganization: true, users: [{ userId: `u-${n}`, name: 'U' }] }),
    },
    {
      name: 'permissions add on a new document',
      run: (n) =>
        call('/v2/auth/permissions/add', {
          user: { userId: `p-${n}` },
          permissions: { resources: [{ type: 'document', id: `texts-perm-${n}`, organizationId: 'texts-perm', accessRole: 'viewer' }] },
        }),
    },
    {
      name: 'comment add on a new document',
      run: (n) =>
        call('/v2/commentannotations/add', {
          organizationId: 'texts-comments',
          documentId: `texts-comments-${n}`,
          createDocument: true,
          commentAnnotations: [{ commentData: [{ commentText: 'hi', from: { userId: 'ana' } }] }],
        }),
    },
  ];

  for (const write of writes)
    it(`${write.name}: no statement holds the time`, async () => {
      const queries = countQueries(keyed.app.app.get(DataSource));
      for (const n of [1, 2]) {
        queries.reset();
        const answer = (await write.run(n)) as { status: number; body: unknown };
        expectSuccess(answer);
        const timed = queries.queries.filter((text) => CLOCK_IN_TEXT.test(text));
        assert.deepEqual(timed, [], `statements with a time in their text:\n${timed.join('\n')}`);
        // The clock moves before the second call.
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    });
});
