import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { countQueries } from './helpers/query-counter.js';
import { agentFor, createKey, expectSuccess } from './factories/workspace.js';

describe('directory reads run a fixed number of statements', () => {
  let app: TestApp;
  let call: ReturnType<typeof agentFor>;
  let counter: ReturnType<typeof countQueries>;
  const organizationId = 'query-count-org';

  before(async () => {
    app = await startApp();
    call = agentFor(app, await createKey(app));
    // Five levels, 3 children each: 3 + 9 + 27 + 81 + 243 folders.
    const folders: { folderId: string; parentFolderId?: string }[] = [];
    let level = ['']; // parent ids of the previous level
    for (let depth = 1; depth <= 5; depth++) {
      const next: string[] = [];
      for (const parent of level) {
        for (let i = 0; i < 3; i++) {
          const folderId = `${parent}${parent ? '.' : 'f'}${i}`;
          folders.push(parent ? { folderId, parentFolderId: parent } : { folderId });
          next.push(folderId);
        }
      }
      level = next;
    }
    for (let i = 0; i < folders.length; i += 500) {
      expectSuccess(await call('/v2/organizations/folders/add', { organizationId, createOrganization: true, folders: folders.slice(i, i + 500) }));
    }
    for (const [index, folderId] of level.slice(0, 5).entries()) {
      const documents = Array.from({ length: 100 }, (_, i) => ({ documentId: `d${index}-${i}` }));
      expectSuccess(await call('/v2/organizations/documents/add', { organizationId, folderId, documents }));
    }
    counter = countQueries(app.dataSource);
  });
  after(() => app.close());

  /**
   * Statements on directory tables for one request; the per-request credential and key-settings
   * lookups are left out (on SQLite they bypass TypeORM, on PostgreSQL they do not).
   */
  const statementsFor = async (path: string, data: Record<string, unknown>) => {
    counter.reset();
    expectSuccess(await call(path, data));
    const directory = counter.queries.filter((query) => !/api_key_auth_token|FROM "?api_key"? WHERE/.test(query));
    if (process.env.SHOW_STATEMENTS) process.stdout.write(`# ${path}: ${directory.length} statements\n`);
    return directory.length;
  };

  it('get folders with maxDepth: the same few statements at depth 1 and depth 5', async () => {
    const shallow = await statementsFor('/v2/organizations/folders/get', { organizationId, maxDepth: 1 });
    const deep = await statementsFor('/v2/organizations/folders/get', { organizationId, maxDepth: 5 });
    const fromFolder = await statementsFor('/v2/organizations/folders/get', { organizationId, folderId: 'f0', maxDepth: 4 });
    assert.ok(shallow > 0, 'the counter sees statements');
    assert.equal(deep, shallow, counter.queries.join('\n'));
    assert.ok(fromFolder <= 3, `${fromFolder} statements:\n${counter.queries.join('\n')}`);
    const [f0] = expectSuccess(await call('/v2/organizations/folders/get', { organizationId, folderId: 'f0', maxDepth: 4 })).data;
    assert.equal(f0.subFolders[0].subFolders[0].subFolders[0].subFolders.length, 3, 'four levels nested');
  });

  it('get documents: the same statements for a page of 5 and a page of 500 spread over folders', async () => {
    const small = await statementsFor('/v2/organizations/documents/get', { organizationId, pageSize: 5 });
    const large = await statementsFor('/v2/organizations/documents/get', { organizationId, pageSize: 500 });
    assert.ok(small > 0, 'the counter sees statements');
    assert.equal(large, small, counter.queries.join('\n'));
    assert.ok(large <= 3, `${large} statements:\n${counter.queries.join('\n')}`);
  });

  it('users add of 500 users: the same statements as of 1', async () => {
    const one = await statementsFor('/v2/users/add', { organizationId, users: [{ userId: 'solo' }] });
    const many = await statementsFor('/v2/users/add', { organizationId, users: Array.from({ length: 500 }, (_, i) => ({ userId: `u${i}`, name: `U ${i}` })) });
    assert.ok(one > 0, 'the counter sees statements');
    assert.equal(many, one, counter.queries.join('\n'));
  });
});
