// @testScope once: the statement caches of the data layer on a PostgreSQL driver that never connects and on SQLite files of their own, whatever the run's engine; no HTTP.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DataSource } from 'typeorm';
import { EmbeddedReads } from '../../src/database/embedded-reads.js';
import { embeddedConnection, MAX_PREPARED_LIST_ITEMS, MAX_PREPARED_STATEMENTS, Sql, type Parameters } from '../../src/database/sql.js';
import { SqliteDatabase } from '../../src/database/sqlite-driver.js';
import { MAX_KEPT_LIST_ITEMS, StatementCache } from '../../src/database/statement-cache.js';

/** Statements with two lists whose lengths combine: far more texts than any cache keeps. */
function* manyShapes(): Generator<Parameters> {
  for (let a = 1; a <= 40; a++)
    for (let b = 1; b <= 40; b++) yield { key: 'k', ids: Array.from({ length: a }, (_, i) => `i${i}`), users: Array.from({ length: b }, (_, i) => `u${i}`) };
}
const LISTS = 'SELECT id FROM t WHERE api_key_id = :key AND id IN (:...ids) AND user_id IN (:...users)';

describe('StatementCache', () => {
  it('keeps at most its capacity, dropping the entry used least recently', () => {
    const cache = new StatementCache<number>(3);
    let made = 0;
    const get = (key: string) => cache.get(key, () => ++made);
    get('a');
    get('b');
    get('c');
    assert.equal(get('a'), 1, 'a hit answers the kept value');
    get('d'); // drops b, the least recently used (a was used after it)
    assert.equal(cache.size, 3);
    assert.equal(get('a'), 1);
    assert.equal(get('c'), 3);
    assert.equal(get('b'), 5, 'b was dropped and made again');
    for (let i = 0; i < 1000; i++) get(`x${i}`);
    assert.equal(cache.size, 3);
  });
});

describe('Sql on PostgreSQL: translations to placeholders stay bounded', () => {
  const dataSource = new DataSource({ type: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' });
  const sent: { name?: string; text: string; values: unknown[] }[] = [];
  // The pool's client, as node-postgres answers (`Sql` sends statements outside units of work there).
  (dataSource.driver as unknown as { master: unknown }).master = {
    query: async (query: { name?: string; text: string; values: unknown[] }) => {
      sent.push(query);
      return { rows: [] };
    },
  };
  let translations = 0;
  const escape = dataSource.driver.escapeQueryWithParameters.bind(dataSource.driver);
  dataSource.driver.escapeQueryWithParameters = (...args) => {
    translations++;
    return escape(...args);
  };
  const sql = new Sql(dataSource);

  it('binds scalars and list items in the placeholders’ order, the same when kept', async () => {
    const parameters = { users: ['u1', 'u2'], key: 'k', ids: ['a', 'b', 'c'] };
    await sql.rows(LISTS, parameters);
    await sql.rows(LISTS, { users: ['v1', 'v2'], key: 'k2', ids: ['d', 'e', 'f'] });
    assert.deepEqual(sent.at(-2), {
      name: sent.at(-2)!.name,
      text: 'SELECT id FROM t WHERE api_key_id = $1 AND id IN ($2, $3, $4) AND user_id IN ($5, $6)',
      values: ['k', 'a', 'b', 'c', 'u1', 'u2'],
    });
    assert.deepEqual(sent.at(-1)!.values, ['k2', 'd', 'e', 'f', 'v1', 'v2']);
    assert.ok(sent.at(-1)!.name, 'a statement with short lists is prepared by name');
    assert.equal(sent.at(-1)!.name, sent.at(-2)!.name, 'one name per text');
    await sql.rows(LISTS, { users: ['v1'], key: 'k2', ids: ['d'] });
    assert.notEqual(sent.at(-1)!.name, sent.at(-2)!.name, 'another list length is another text, with another name');
  });

  it('prepares by name only statements of short lists, and at most MAX_PREPARED_STATEMENTS texts', async () => {
    const ids = (n: number) => ({ ids: Array.from({ length: n }, (_, i) => `i${i}`) });
    await sql.rows('SELECT id FROM t WHERE id IN (:...ids)', ids(MAX_PREPARED_LIST_ITEMS));
    assert.ok(sent.at(-1)!.name);
    await sql.rows('SELECT id FROM t WHERE id IN (:...ids)', ids(MAX_PREPARED_LIST_ITEMS + 1));
    assert.equal(sent.at(-1)!.name, undefined, 'a longer list is sent unnamed');
    for (let i = 0; i < MAX_PREPARED_STATEMENTS + 10; i++) await sql.rows(`SELECT ${i} AS n FROM t WHERE id = :id`, { id: 'x' });
    const names = new Set(sent.flatMap((query) => (query.name ? [query.name] : [])));
    assert.equal(names.size, MAX_PREPARED_STATEMENTS, 'no more names than the bound');
    assert.equal(sent.at(-1)!.name, undefined, 'texts past the bound are sent unnamed');
    await sql.rows('SELECT id FROM t WHERE id IN (:...ids)', ids(MAX_PREPARED_LIST_ITEMS));
    assert.ok(sent.at(-1)!.name, 'a text named before keeps its name');
  });

  it('translates a statement once while it is in use, however many other list lengths come between', async () => {
    const hot = async () => sql.rows('SELECT id FROM api_key WHERE id = :id', { id: 'key' });
    await hot();
    const before = translations;
    let shapes = 0;
    for (const parameters of manyShapes()) {
      await sql.rows(LISTS, parameters);
      if (++shapes % 100 === 0) await hot();
    }
    assert.equal(translations - before, shapes, 'each new shape translated once; the hot statement never again');
    // The first shapes were dropped: the cache did not keep all 1,600.
    const first = manyShapes().next().value!;
    const beforeFirst = translations;
    await sql.rows(LISTS, first);
    assert.equal(translations - beforeFirst, 1, 'the first shape, long unused, is translated again');
  });

  it('does not keep statements with long lists', async () => {
    const long = { ids: Array.from({ length: MAX_KEPT_LIST_ITEMS + 1 }, (_, i) => `i${i}`) };
    const before = translations;
    await sql.rows('SELECT id FROM t WHERE id IN (:...ids)', long);
    await sql.rows('SELECT id FROM t WHERE id IN (:...ids)', long);
    assert.equal(translations - before, 2);
    const short = { ids: long.ids.slice(1) };
    await sql.rows('SELECT id FROM t WHERE id IN (:...ids)', short);
    await sql.rows('SELECT id FROM t WHERE id IN (:...ids)', short);
    assert.equal(translations - before, 3, `a list of ${MAX_KEPT_LIST_ITEMS} is kept`);
    assert.equal(sent.at(-1)!.values.length, MAX_KEPT_LIST_ITEMS);
  });
});

describe('the embedded database: prepared statements stay bounded', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statement-cache-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const open = async (file: string) => {
    const dataSource = new DataSource({ type: 'better-sqlite3', driver: SqliteDatabase, database: file });
    await dataSource.initialize();
    await dataSource.query('CREATE TABLE t (id TEXT, api_key_id TEXT, user_id TEXT)');
    await dataSource.query("INSERT INTO t VALUES ('i0', 'k', 'u0'), ('i1', 'k', 'u1')");
    return dataSource;
  };

  it('Sql keeps the statements in use and prepares the others again', async () => {
    const dataSource = await open(':memory:');
    const connection = (dataSource.driver as unknown as { databaseConnection: { prepare: (text: string) => unknown } }).databaseConnection;
    const prepare = connection.prepare.bind(connection);
    let prepared = 0;
    connection.prepare = (text: string) => {
      prepared++;
      return prepare(text);
    };
    const sql = new Sql(dataSource);
    const hot = () => sql.rows<{ id: string }>('SELECT id FROM t WHERE id = :id', { id: 'i1' });
    assert.deepEqual(await hot(), [{ id: 'i1' }]);
    const before = prepared;
    let shapes = 0;
    for (const parameters of manyShapes()) {
      assert.deepEqual(
        await sql.rows(LISTS, parameters),
        [{ id: 'i0' }, { id: 'i1' }].slice(0, Math.min((parameters.ids as string[]).length, (parameters.users as string[]).length)),
      );
      if (++shapes % 100 === 0) await hot();
    }
    assert.equal(prepared - before, shapes, 'each new text prepared once; the hot statement never again');
    const beforeFirst = prepared;
    await sql.rows(LISTS, manyShapes().next().value!);
    assert.equal(prepared - beforeFirst, 1, 'the first text, long unused, is prepared again');
    await dataSource.destroy();
  });

  it('Sql reads rows of short columns through their packed form, prepared once with the statement', async () => {
    const dataSource = await open(':memory:');
    await dataSource.query('CREATE TABLE v (id VARCHAR(16), n INTEGER)');
    await dataSource.query("INSERT INTO v VALUES ('a', 1), ('b', 2), ('c', 3)");
    const connection = (dataSource.driver as unknown as { databaseConnection: { prepare: (text: string) => unknown } }).databaseConnection;
    const prepare = connection.prepare.bind(connection);
    const texts: string[] = [];
    connection.prepare = (text: string) => {
      texts.push(text);
      return prepare(text);
    };
    const sql = new Sql(dataSource);
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await sql.rows('SELECT id, n FROM v WHERE n >= :n ORDER BY n DESC', { n: 2 }), [
        { id: 'c', n: 3 },
        { id: 'b', n: 2 },
      ]);
    }
    assert.deepEqual(texts, [
      'SELECT id, n FROM v WHERE n >= ? ORDER BY n DESC',
      'SELECT json_group_array(json_array("id", "n")) FROM (SELECT id, n FROM v WHERE n >= ? ORDER BY n DESC)',
    ]);
    // A text that cannot be a subquery (its comment would swallow the closing parenthesis) is read as it is.
    texts.length = 0;
    assert.deepEqual(await sql.rows('SELECT id FROM v WHERE n = :n -- the one', { n: 1 }), [{ id: 'a' }]);
    assert.equal(texts.length, 2, 'the packed form was tried once');
    assert.deepEqual(await sql.rows('SELECT id FROM v WHERE n = :n -- the one', { n: 1 }), [{ id: 'a' }]);
    assert.equal(texts.length, 2, 'and not again');
    await dataSource.destroy();
  });

  it('committed reads keep at most 500 statements on the reader connection', async () => {
    const dataSource = await open(join(dir, 'reads.sqlite'));
    const reads = EmbeddedReads.attach(dataSource, embeddedConnection(dataSource)!)!;
    const text = (n: number) => `SELECT id FROM t WHERE id IN (${Array.from({ length: n }, () => '?').join(', ')})`;
    const first = reads.prepared(text(1));
    const hot = reads.prepared('SELECT id FROM t');
    for (let n = 2; n <= 1000; n++) {
      reads.prepared(text(n));
      if (n % 100 === 0) assert.equal(reads.prepared('SELECT id FROM t'), hot, 'a statement in use stays');
    }
    assert.notEqual(reads.prepared(text(1)), first, 'the first, long unused, was dropped');
    reads.close();
    await dataSource.destroy();
  });
});
