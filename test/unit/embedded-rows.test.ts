// @testScope once: rows of the embedded driver read as arrays and built into objects, on a SQLite file of its own, whatever the run's engine; no HTTP.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { allRows, type EmbeddedStatement, iterateRows, packedText } from '../../src/database/embedded-rows.js';
import { SqliteDatabase } from '../../src/database/sqlite-driver.js';

describe('embedded rows (allRows, iterateRows, packedText)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'embedded-rows-'));
  const db = new SqliteDatabase(join(dir, 'rows.sqlite'));
  after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB, note TEXT);
    INSERT INTO t VALUES (1, 'one', 1.5, x'0102', NULL), (2, 'two', -2, NULL, 'é ✓'), (3, 'three', 0, x'', 'x');`);
  const prepare = (text: string) => db.prepare(text) as unknown as EmbeddedStatement;
  /** Whether the statement answers objects, as TypeORM's reads of the same statement expect. */
  const inObjectMode = (statement: EmbeddedStatement) => !Array.isArray(statement.all(1)[0]);

  it('answers what the driver’s own objects hold, value for value and type for type', () => {
    const statement = prepare('SELECT id, name, score, data, note FROM t WHERE id >= ? ORDER BY id');
    const expected = statement.all(1);
    const rows = allRows<Record<string, unknown>>(statement, [1]);
    assert.deepEqual(rows, expected);
    assert.deepEqual(Object.keys(rows[0]!), ['id', 'name', 'score', 'data', 'note']);
    assert.ok(Buffer.isBuffer(rows[0]!.data));
    assert.equal(rows[1]!.note, 'é ✓');
    assert.deepEqual(allRows(statement, [4]), []);
    // Names the driver answers: expressions, quoted names, and a repeated name (the later wins).
    const odd = prepare(`SELECT id AS "we""ird name", id + 1, 'a' AS dup, 'b' AS dup FROM t WHERE id = ?`);
    assert.deepEqual(allRows(odd, [1]), odd.all(1));
    assert.deepEqual(allRows(odd, [1]), [{ 'we"ird name': 1, 'id + 1': 2, dup: 'b' }]);
  });

  it('leaves the statement answering objects, after rows, an early stop and an error', () => {
    const statement = prepare('SELECT id, name FROM t WHERE id >= ? ORDER BY id');
    allRows(statement, [1]);
    assert.ok(inObjectMode(statement), 'after allRows');
    const all = [...iterateRows<{ id: number; name: string }>(statement, [1])];
    assert.deepEqual(all, statement.all(1));
    assert.ok(inObjectMode(statement), 'after a whole iteration');
    const firstOnly: unknown[] = [];
    for (const row of iterateRows(statement, [1])) {
      firstOnly.push(row);
      break;
    }
    assert.deepEqual(firstOnly, [{ id: 1, name: 'one' }]);
    assert.ok(inObjectMode(statement), 'after an early stop');
    assert.throws(() => {
      for (const row of iterateRows(statement, [1])) throw new Error(`stop at ${JSON.stringify(row)}`);
    }, /stop at/);
    assert.ok(inObjectMode(statement), 'after an error in the loop');
    assert.throws(() => allRows(statement, ['a', 'b']), /parameters|bind|Too many/i);
    assert.ok(inObjectMode(statement), 'after the driver refused the values');
  });

  /** `allRows` through the statement's packed form; fails when it has none. */
  const packedRows = (text: string, values: unknown[]) => {
    const statement = prepare(text);
    const packed = packedText(statement, text);
    assert.ok(packed, `packed: ${text}`);
    return allRows<Record<string, unknown>>(statement, values, prepare(packed).pluck(true));
  };

  it('packed: the same rows as the driver’s, in the query’s order, for columns JSON carries as they are', () => {
    db.exec(`CREATE TABLE p (id INTEGER PRIMARY KEY, name VARCHAR(64), score REAL, flag BOOLEAN, big INTEGER, note VARCHAR(256));
      INSERT INTO p VALUES (1, 'one', 0.30000000000000004, 1, 9007199254740991, NULL), (2, 'two "2"', -2.5e-300, 0, -7, 'é ✓ \\ {"a":[1]}'),
        (3, '[1,2]', 1e308, 1, 0, '');`);
    for (const [text, values] of [
      ['SELECT id, name, score, flag, big, note FROM p WHERE id >= ? ORDER BY id DESC', [1]],
      ['SELECT note, id FROM p ORDER BY name LIMIT ?', [2]],
      ['WITH q AS (SELECT id, name FROM p WHERE id > ?) SELECT q.id, q.name FROM q ORDER BY q.id', [1]],
      ['SELECT p.id, t.id AS t_id, p.name FROM p JOIN t ON t.id = p.id ORDER BY p.id DESC', []],
      ['SELECT id FROM p WHERE id > ?', [99]],
    ] as const) {
      const expected = prepare(text).all(...values);
      assert.deepEqual(packedRows(text, [...values]), expected, text);
    }
    const rows = packedRows('SELECT id, score, note FROM p ORDER BY id', []);
    assert.equal(rows[0]!.score, 0.30000000000000004, 'a REAL round-trips');
    assert.equal(rows[1]!.note, 'é ✓ \\ {"a":[1]}', 'a string that looks like JSON stays a string');
  });

  it('packed: none where JSON would change a value or a name or cost more, or for anything but a query', () => {
    for (const text of [
      'SELECT id, data FROM t', // a blob (JSON functions read blobs as binary JSON)
      'SELECT id, id + 1 FROM t', // an expression: its type is unknown
      "SELECT id, json_object('a', 1) AS j FROM t", // JSON from a function would be embedded, not quoted
      'SELECT t.id, p.id FROM t JOIN p ON p.id = t.id', // one name twice
      'SELECT id, name FROM t', // TEXT: JSON documents and prose cost more escaped and parsed again
      'PRAGMA table_info(t)',
    ]) {
      assert.equal(packedText(prepare(text), text), undefined, text);
    }
    const returning = "INSERT INTO p (id, name) VALUES (10, 'ten') RETURNING id, name";
    assert.equal(packedText(prepare(returning), returning), undefined, 'a write answering rows');
    assert.equal(packedText(prepare('DELETE FROM p WHERE id = 10'), 'DELETE FROM p WHERE id = 10'), undefined);
  });
});
