// @testScope engine: schema migrations over stored rows; no HTTP framework is involved.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { ownDatabase, type OwnDatabase } from './helpers/database.js';
import { agentFor, createKey, expectSuccess } from './factories/workspace.js';

/**
 * A database made by the earlier migrations moves forward with its data: a migration is undone
 * (with those after it) and run again over rows written before it, as on an upgrade.
 */
describe('migrating a database forward', () => {
  let app: TestApp;
  let database: OwnDatabase;
  // A database of its own on PostgreSQL: undoing migrations on the run's shared one raced the
  // other files' starts, which ran the undone migrations again ("relation already exists").
  before(async () => {
    database = await ownDatabase();
    app = await startApp(database.url ? { DATABASE_URL: database.url } : {});
  });
  after(async () => {
    await app.close();
    await database.drop();
  });

  it('UpstreamFields fills in the facets of judgments recorded before it, from their activities', async () => {
    const call = agentFor(app, await createKey(app));
    const decide = (id: string, entityData: Record<string, unknown>, targetEntityId: string) =>
      call('/v2/activities/add', {
        organizationId: 'org-up',
        documentId: 'doc',
        activities: [{ id, featureType: 'custom', actionType: 'custom', actionUser: { userId: 'amy' }, targetEntityId, entityData }],
      });
    expectSuccess(await decide('by-agent', { decision: 'approved', agent: { name: 'bot' }, contentType: 'copy' }, 'thread-a'));
    expectSuccess(await decide('by-human', { decision: 'rejected', annotationId: 'thread-b' }, 'entity-b'));
    // What the filters find: they read the columns the migration fills in.
    const idsWhere = async (filter: Record<string, string>) =>
      (expectSuccess(await call('/v2/memory/judgments/query', { organizationId: 'org-up', ...filter })).data as { id: string }[]).map((j) => j.id);
    const facets = async () => [
      await idsWhere({ judgeType: 'agent' }),
      await idsWhere({ judgeType: 'human' }),
      await idsWhere({ contentType: 'copy' }),
      await idsWhere({ annotationId: 'thread-a' }),
      await idsWhere({ annotationId: 'thread-b' }),
    ];
    const expected = [['by-agent'], ['by-human'], ['by-agent'], ['by-agent'], ['by-human']];
    assert.deepEqual(await facets(), expected);

    // Back to the database as it was before UpstreamFields (later migrations undone first).
    const names = app.dataSource.migrations.map((migration) => migration.name);
    for (let undo = names.length - names.indexOf('UpstreamFields1763850000000'); undo > 0; undo--) await app.dataSource.undoLastMigration();
    const columns = async () => Object.keys((await app.dataSource.query('SELECT * FROM judgment'))[0] as object);
    assert.ok(!(await columns()).includes('judge_type'), 'the columns are gone');
    await app.dataSource.runMigrations();
    assert.ok((await columns()).includes('judge_type'));
    assert.deepEqual(await facets(), expected);
  });
});
