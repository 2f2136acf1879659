import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataSource, type EntityManager } from 'typeorm';
import { Sql, type Insert } from '../src/database/sql.js';
import { DELIVERY_COLUMNS } from '../src/delivery/outbox-store.js';
import { Transactions } from '../src/database/transactions.js';
import { ApiKeyStore } from '../src/workspace/api-key-store.js';
import { startApp, type TestApp } from './helpers/app.js';
import { countQueries } from './helpers/query-counter.js';
import { agentFor, createKey, expectSuccess, type TestKey } from './factories/workspace.js';

const ORG = 'org-statements';
const DOC = 'doc-statements';

/**
 * Writes that span tables go as one statement on PostgreSQL (`Sql.insertAll`), all or none, and
 * a comment add of new threads needs no transaction around it: what it costs in round trips is
 * counted here, as the bench's comment add against `pgbench` depends on it.
 */
describe('multi-table writes: one statement, all or none', () => {
  let app: TestApp;
  let key: TestKey;
  let call: ReturnType<typeof agentFor>;
  let postgres: boolean;
  before(async () => {
    app = await startApp();
    key = await createKey(app);
    call = agentFor(app, key);
    postgres = app.app.get(DataSource).options.type === 'postgres';
    expectSuccess(await call('/v2/organizations/documents/add', { organizationId: ORG, createOrganization: true, documents: [{ documentId: DOC }] }));
  });
  after(() => app.close());

  /** A thread's three tables' rows: its annotation, `comments` comments and `mentions` mentions of the first. */
  function threadRows(annotationId: string, comments: number, mentions: number): Insert[] {
    const scope = [key.apiKey, ORG, annotationId];
    return [
      {
        table: 'comment_annotation',
        columns: [
          'api_key_id',
          'organization_id',
          'annotation_id',
          'document_id',
          'status_id',
          'status_type',
          'from_user_id',
          'annotation_type',
          'created_at',
          'last_updated',
          'body',
        ],
        rows: [[...scope, DOC, 'OPEN', 'default', 'ana', 'comment', 1, 1, '{}']],
      },
      {
        table: 'comment',
        columns: ['api_key_id', 'organization_id', 'annotation_id', 'comment_id', 'from_user_id', 'created_at', 'last_updated', 'body'],
        rows: Array.from({ length: comments }, (_, i) => [...scope, i + 1, 'ana', 1, 1, '{}']),
      },
      {
        table: 'comment_mention',
        columns: ['api_key_id', 'organization_id', 'annotation_id', 'comment_id', 'user_id'],
        rows: Array.from({ length: mentions }, (_, i) => [...scope, 1, `user-${i}`]),
      },
    ];
  }

  async function stored(annotationId: string): Promise<number[]> {
    const counts = [];
    for (const table of ['comment_annotation', 'comment', 'comment_mention']) {
      const [row] = (await app.dataSource.query(`SELECT count(*) AS n FROM ${table} WHERE annotation_id = '${annotationId}'`)) as { n: number | string }[];
      counts.push(Number(row!.n));
    }
    return counts;
  }

  /** Runs `inserts` in a unit of work (atomic or not); answers the statements it sent. */
  async function insertAll(inserts: Insert[], atomic: boolean): Promise<{ error?: Error; statements: string[] }> {
    const queries = countQueries(app.app.get(DataSource));
    queries.reset();
    const error = await app.app
      .get(Transactions)
      .run((manager) => app.app.get(Sql).insertAll(manager, inserts), undefined, { atomic })
      .then(
        () => undefined,
        (failure: Error) => failure,
      );
    // The unit's own statements: an app's background workers (user data jobs, the outbox) may
    // send theirs meanwhile.
    const tables = inserts.map((insert) => insert.table).join('|');
    return { error, statements: queries.onConnectionOf(new RegExp(`\\b(${tables})\\b`)) };
  }

  it("reads a unit of work makes together take turns on its connection (node-postgres's own queueing is deprecated)", async () => {
    if (!postgres) return; // the embedded driver's statements are synchronous
    const transactions = app.app.get(Transactions);
    const sql = app.app.get(Sql);
    const reads = async (manager: EntityManager) => {
      // The unit's connection, watched: a statement sent while another runs on it is what
      // node-postgres warns of (and pg 9 refuses).
      const client = (await manager.queryRunner!.connect()) as { query: (...args: unknown[]) => Promise<unknown> };
      const query = client.query;
      let running = 0;
      let most = 0;
      client.query = async (...args: unknown[]) => {
        most = Math.max(most, ++running);
        try {
          return await query.apply(client, args);
        } finally {
          running--;
        }
      };
      try {
        const rows = await Promise.all([
          sql.rows<{ a: number }>('SELECT 1 AS a FROM (SELECT pg_sleep(0.02)) s', {}),
          sql.rows<{ b: number }>('SELECT 2 AS b', {}),
          sql.rows<{ c: number }>('SELECT 3 AS c', {}),
        ]);
        return { rows, most };
      } finally {
        client.query = query;
      }
    };
    const worker = transactions.workerConnection();
    try {
      for (const [on, options] of [
        [worker, { atomic: false }],
        [worker, {}],
        [undefined, {}],
      ] as const) {
        const result = await transactions.run((manager) => reads(manager), on, options);
        assert.deepEqual(result.rows, [[{ a: 1 }], [{ b: 2 }], [{ c: 3 }]]);
        assert.equal(result.most, 1, 'a statement was sent while another ran on the connection');
      }
    } finally {
      await transactions.release(worker);
    }
  });

  it('rows for three tables, foreign keys between them included, are one statement on PostgreSQL', async () => {
    const { error, statements } = await insertAll(threadRows('ins-one', 2, 3), false);
    assert.equal(error, undefined);
    assert.deepEqual(await stored('ins-one'), [1, 2, 3]);
    if (postgres) {
      assert.equal(statements.length, 1, statements.join('\n'));
      assert.match(
        statements[0]!,
        /^WITH write_0 AS \(INSERT INTO comment_annotation .*\), write_1 AS \(INSERT INTO comment .*\) INSERT INTO comment_mention /s,
      );
    }
  });

  it('a failing part leaves nothing of the others, with and without a transaction around it', async () => {
    for (const atomic of [false, true]) {
      const id = `ins-fail-${atomic}`;
      const rows = threadRows(id, 1, 2);
      // The second mention repeats the first: the mention table's primary key refuses it.
      (rows[2]!.rows as unknown[][])[1] = [...rows[2]!.rows[0]!];
      const { error } = await insertAll(rows, atomic);
      assert.ok(error, `atomic: ${atomic} should fail`);
      assert.deepEqual(await stored(id), [0, 0, 0], `atomic: ${atomic}`);
    }
  });

  it('a batch too big for one statement still writes all or none without a transaction around it', async () => {
    // 2,100 mentions × 5 values pass the 10,000 values of one statement.
    const big = threadRows('ins-big', 1, 2_100);
    const { error, statements } = await insertAll(big, false);
    assert.equal(error, undefined);
    assert.deepEqual(await stored('ins-big'), [1, 1, 2_100]);
    if (postgres)
      assert.ok(
        statements.length > 1 && statements.some((s) => /^START TRANSACTION/.test(s)) && statements.some((s) => /^COMMIT/.test(s)),
        statements.join('\n'),
      );
    const failing = threadRows('ins-big-fail', 1, 2_100);
    (failing[2]!.rows as unknown[][])[2_099] = [...failing[2]!.rows[0]!];
    assert.ok((await insertAll(failing, false)).error);
    assert.deepEqual(await stored('ins-big-fail'), [0, 0, 0]);
    // One table alone, in two statements (1,000 annotations × 11 values): the second's repeat of
    // the first row fails, and the first statement's rows go too.
    const [annotations] = threadRows('ins-one-table', 0, 0);
    const many = Array.from({ length: 1_000 }, (_, i) => [key.apiKey, ORG, `ins-one-table-${i}`, ...annotations!.rows[0]!.slice(3)]);
    many[999] = many[0]!;
    assert.ok((await insertAll([{ ...annotations!, rows: many }], false)).error);
    const [left] = (await app.dataSource.query("SELECT count(*) AS n FROM comment_annotation WHERE annotation_id LIKE 'ins-one-table-%'")) as {
      n: number | string;
    }[];
    assert.equal(Number(left!.n), 0);
  });

  it('updateRows with records to insert: records go in for the rows updated only, in one statement on PostgreSQL', async () => {
    const sql = app.app.get(Sql);
    const transactions = app.app.get(Transactions);
    const ids = ['dlv_stmt_1', 'dlv_stmt_2', 'dlv_stmt_3'];
    await transactions.run(async (manager) => {
      await sql.insert(
        manager,
        'outbox_message',
        ['id', 'api_key_id', 'event_key', 'event_type', 'payload', 'created_at'],
        [['msg_stmt', key.apiKey, 'stmt', 'test', '{}', 1]],
      );
      await sql.insert(
        manager,
        'outbox_delivery',
        [
          'id',
          'api_key_id',
          'message_id',
          'channel',
          'target',
          'route',
          'status',
          'attempts',
          'max_attempts',
          'next_attempt_at',
          'created_at',
          'updated_at',
          'lease_token',
        ],
        ids.map((id) => [id, key.apiKey, 'msg_stmt', 'webhook', id, 'route-stmt', 'pending', 0, 3, 1, 1, 1, 'held']),
      );
    });
    const queries = countQueries(app.app.get(DataSource));
    queries.reset();
    const updated = await transactions.run(
      (manager) =>
        sql.updateRows(
          manager,
          'outbox_delivery',
          {
            match: [
              { name: 'id', type: 'varchar' },
              { name: 'lease_token', type: 'varchar' },
            ],
            set: [{ name: 'status', type: 'varchar' }],
          },
          // The second's claim is another's: its row is not updated, and gets no record.
          ids.map((id, i) => [id, i === 1 ? 'lost' : 'held', 'succeeded']),
          {
            table: 'delivery_attempt',
            columns: [
              { name: 'delivery_id', type: 'varchar' },
              { name: 'attempt', type: 'int' },
              { name: 'attempted_at', type: 'bigint' },
              { name: 'duration_ms', type: 'int' },
            ],
            rows: ids.map((id) => [id, 1, 5, 7]),
          },
        ),
      undefined,
      { atomic: false },
    );
    const sent = [...queries.queries];
    assert.deepEqual([...updated].sort(), ['dlv_stmt_1', 'dlv_stmt_3']);
    const records = (await app.dataSource.query(`SELECT delivery_id FROM delivery_attempt WHERE delivery_id LIKE 'dlv_stmt_%' ORDER BY delivery_id`)) as {
      delivery_id: string;
    }[];
    assert.deepEqual(
      records.map((r) => r.delivery_id),
      ['dlv_stmt_1', 'dlv_stmt_3'],
    );
    if (postgres) assert.equal(sent.length, 1, sent.join('\n'));
  });

  it('insertNew with children: the children of the rows inserted go in, those of a row already there do not; one statement on PostgreSQL', async () => {
    const sql = app.app.get(Sql);
    const transactions = app.app.get(Transactions);
    const message = (id: string, eventKey: string) => [id, key.apiKey, eventKey, 'test', '{}', 1];
    const delivery = (id: string, messageId: string) => [id, key.apiKey, messageId, 'webhook', id, 'route-children', 'pending', 0, 3, 1, 1, 1];
    const insert = (messages: (string | number)[][], deliveries: (string | number)[][]) =>
      transactions.run(
        (manager) =>
          sql.insertNew(
            manager,
            'outbox_message',
            ['id', 'api_key_id', 'event_key', 'event_type', 'payload', 'created_at'],
            messages,
            ['api_key_id', 'event_key'],
            'id',
            {
              table: 'outbox_delivery',
              columns: DELIVERY_COLUMNS,
              rows: deliveries,
              link: 'message_id',
            },
          ),
        undefined,
        { atomic: false },
      );
    assert.deepEqual(await insert([message('msg_child_1', 'child-1')], [delivery('dlv_child_1a', 'msg_child_1')]), ['msg_child_1']);
    const queries = countQueries(app.app.get(DataSource));
    queries.reset();
    // The first message's key is taken (by msg_child_1): it and its delivery stay out; the second goes in with both of its own.
    const inserted = await insert(
      [message('msg_child_2', 'child-1'), message('msg_child_3', 'child-3')],
      [delivery('dlv_child_2a', 'msg_child_2'), delivery('dlv_child_3a', 'msg_child_3'), delivery('dlv_child_3b', 'msg_child_3')],
    );
    const sent = [...queries.queries];
    assert.deepEqual(inserted, ['msg_child_3']);
    const rows = (await app.dataSource.query(
      `SELECT id, message_id, attempts, next_attempt_at FROM outbox_delivery WHERE route = 'route-children' ORDER BY id`,
    )) as { id: string; message_id: string; attempts: number; next_attempt_at: number | string }[];
    assert.deepEqual(
      rows.map((row) => [row.id, row.message_id, Number(row.attempts), Number(row.next_attempt_at)]),
      [
        ['dlv_child_1a', 'msg_child_1', 0, 1],
        ['dlv_child_3a', 'msg_child_3', 0, 1],
        ['dlv_child_3b', 'msg_child_3', 0, 1],
      ],
    );
    if (postgres) assert.equal(sent.length, 1, sent.join('\n'));
  });

  it("a unit of work reads its key's row once: settings and configs from one read, read again after the unit writes them", async () => {
    const keys = app.app.get(ApiKeyStore);
    const queries = countQueries(app.app.get(DataSource));
    const keyReads = () => queries.queries.filter((q) => /\bFROM "?api_key"? WHERE/.test(q)).length;
    queries.reset();
    await app.app.get(Transactions).run(async (manager) => {
      const before = await keys.settings(key.apiKey);
      await keys.configsByKey([key.apiKey]);
      await keys.settings(key.apiKey);
      assert.equal(keyReads(), 1, queries.queries.join('\n'));
      const locked = (await keys.lockSettings(manager, key.apiKey))!;
      await keys.saveSettings(manager, key.apiKey, {
        ...locked,
        defaultDocumentAccessType: before.defaultDocumentAccessType === 'public' ? 'restricted' : 'public',
      });
      assert.notEqual((await keys.settings(key.apiKey)).defaultDocumentAccessType, before.defaultDocumentAccessType, 'the unit reads what it wrote');
      // Put back as it was, for the other tests.
      await keys.saveSettings(manager, key.apiKey, { ...locked, defaultDocumentAccessType: before.defaultDocumentAccessType });
    });
    // The next unit reads again, whatever changed the row between them (another instance, say):
    // every unit on a worker's connection has the same manager, so what a unit keeps is keyed by its run.
    const transactions = app.app.get(Transactions);
    const original = await transactions.run(async () => keys.settings(key.apiKey));
    const changed = { ...original, defaultDocumentAccessType: original.defaultDocumentAccessType === 'public' ? 'restricted' : 'public' };
    const worker = transactions.workerConnection();
    try {
      await transactions.run(async () => keys.settings(key.apiKey), worker);
      await app.dataSource.query(`UPDATE api_key SET settings = '${JSON.stringify(changed)}' WHERE id = '${key.apiKey}'`);
      assert.equal((await transactions.run(async () => keys.settings(key.apiKey))).defaultDocumentAccessType, changed.defaultDocumentAccessType);
      assert.equal((await transactions.run(async () => keys.settings(key.apiKey), worker)).defaultDocumentAccessType, changed.defaultDocumentAccessType);
    } finally {
      await transactions.release(worker);
      await app.dataSource.query(`UPDATE api_key SET settings = '${JSON.stringify(original)}' WHERE id = '${key.apiKey}'`);
    }
    // Outside a unit nothing is kept: each call reads.
    queries.reset();
    await keys.settings(key.apiKey);
    await keys.settings(key.apiKey);
    if (postgres) assert.equal(keyReads(), 2, queries.queries.join('\n'));
  });

  describe('a unit of work begun lazily', () => {
    const MESSAGE_COLUMNS = ['id', 'api_key_id', 'event_key', 'event_type', 'payload', 'created_at'];
    const message = (id: string) => ({ table: 'outbox_message', columns: MESSAGE_COLUMNS, rows: [[id, key.apiKey, id, 'test', '{}', 1]] });
    const messagesNamed = async (prefix: string) =>
      ((await app.dataSource.query(`SELECT id FROM outbox_message WHERE id LIKE '${prefix}%' ORDER BY id`)) as { id: string }[]).map((row) => row.id);
    const lazily = <T>(work: (manager: import('typeorm').EntityManager) => Promise<T>) => app.app.get(Transactions).run(work, undefined, { begin: 'lazily' });

    it('inserts and unrelated reads: the reads run as they come, the inserts go last as one statement, with no transaction', async () => {
      const sql = app.app.get(Sql);
      const queries = countQueries(app.app.get(DataSource));
      queries.reset();
      const read = await lazily(async (manager) => {
        await sql.insertAll(manager, [message('lazy_a1')]);
        const [row] = await sql.rows<{ id: string }>('SELECT id FROM api_key WHERE id = :id', { id: key.apiKey });
        await sql.insert(manager, 'outbox_message', MESSAGE_COLUMNS, message('lazy_a2').rows);
        return row?.id;
      });
      const sent = [...queries.queries];
      assert.equal(read, key.apiKey);
      assert.deepEqual(await messagesNamed('lazy_a'), ['lazy_a1', 'lazy_a2']);
      if (postgres) {
        assert.deepEqual(
          sent.map((q) => q.slice(0, 30)),
          ['SELECT id FROM api_key WHERE i', 'WITH write_0 AS (INSERT INTO o'],
        );
      }
    });

    it('a read of a table with inserts waiting sees them: the transaction begins there, and a failure after it undoes them', async () => {
      const sql = app.app.get(Sql);
      const queries = countQueries(app.app.get(DataSource));
      queries.reset();
      let seen: string[] = [];
      await assert.rejects(
        lazily(async (manager) => {
          await sql.insert(manager, 'outbox_message', MESSAGE_COLUMNS, message('lazy_b1').rows);
          seen = (await sql.rows<{ id: string }>("SELECT id FROM outbox_message WHERE id LIKE 'lazy_b%'", {})).map((row) => row.id);
          throw new Error('the unit fails after its read');
        }),
        /the unit fails after its read/,
      );
      assert.deepEqual(seen, ['lazy_b1']);
      assert.deepEqual(await messagesNamed('lazy_b'), []);
      if (postgres) {
        assert.equal(queries.queries[0], 'START TRANSACTION');
        assert.match(queries.queries[1]!, /^INSERT INTO outbox_message/);
        assert.ok(queries.queries.includes('ROLLBACK'), queries.queries.join('\n'));
      }
    });

    it('inserts waiting when the unit fails never go; a failing last statement leaves none of its inserts', async () => {
      const sql = app.app.get(Sql);
      await assert.rejects(
        lazily(async (manager) => {
          await sql.insert(manager, 'outbox_message', MESSAGE_COLUMNS, message('lazy_c1').rows);
          throw new Error('the unit fails before its end');
        }),
        /the unit fails before its end/,
      );
      // The last row repeats the one before's id: the one statement they go in fails, and the first row with it.
      await assert.rejects(
        lazily(async (manager) => {
          await sql.insert(manager, 'outbox_message', MESSAGE_COLUMNS, message('lazy_c2').rows);
          await sql.insert(manager, 'outbox_message', MESSAGE_COLUMNS, [[...message('lazy_c3').rows[0]!]]);
          await sql.insert(manager, 'outbox_message', MESSAGE_COLUMNS, [[...message('lazy_c3').rows[0]!]]);
        }),
      );
      assert.deepEqual(await messagesNamed('lazy_c'), []);
    });

    it('a lock begins the transaction first, and the unit commits what it wrote', async () => {
      const sql = app.app.get(Sql);
      const queries = countQueries(app.app.get(DataSource));
      queries.reset();
      await lazily(async (manager) => {
        await sql.insert(manager, 'outbox_message', MESSAGE_COLUMNS, message('lazy_d1').rows);
        await sql.lockRows(manager, 'SELECT id FROM api_key WHERE id = :id', { id: key.apiKey });
      });
      assert.deepEqual(await messagesNamed('lazy_d'), ['lazy_d1']);
      if (postgres) {
        assert.equal(queries.queries[0], 'START TRANSACTION');
        assert.match(queries.queries[1]!, /^INSERT INTO outbox_message/);
        assert.match(queries.queries[2]!, /FOR UPDATE$/);
        assert.equal(queries.queries[3], 'COMMIT');
      }
    });
  });

  it('a comment add of new threads on PostgreSQL: the credentials, its numbers and its rows, three statements and no transaction', async () => {
    const queries = countQueries(app.app.get(DataSource));
    const add = (triggers: boolean, notification = false) =>
      call('/v2/commentannotations/add', {
        organizationId: ORG,
        documentId: DOC,
        commentAnnotations: [
          {
            commentData: [
              {
                commentText: 'Hey {{bob}}',
                from: { userId: 'ana' },
                taggedUserContacts: [{ userId: 'bob', contact: { userId: 'bob' } }],
                ...(triggers ? { triggerActivities: true } : {}),
                ...(notification ? { triggerNotification: true } : {}),
              },
            ],
          },
        ],
      });
    queries.reset();
    const added = expectSuccess(await add(false)).data as Record<string, { annotationId: string }>;
    const sent = [...queries.queries];
    const annotationId = Object.values(added)[0]!.annotationId;
    assert.deepEqual(await stored(annotationId), [1, 1, 1]);
    if (postgres) {
      const [credentials, numbers, rows, ...more] = sent;
      assert.match(credentials!, /FROM api_key_auth_token/);
      assert.match(numbers!, /^INSERT INTO comment_counter/);
      assert.match(rows!, /^WITH write_0 AS \(INSERT INTO comment_annotation/);
      assert.deepEqual(more, []);
    }
    // An add that records events (in the log and the outbox) reads the key's settings and configs
    // (one read: the unit keeps the key's row), then writes everything in that same one statement: the threads' rows, the activity, and the
    // event's message and deliveries, all or none, with no transaction around them.
    queries.reset();
    const notified = expectSuccess(await add(true, true)).data as Record<string, { annotationId: string }>;
    const notifying = [...queries.queries];
    const notifiedId = Object.values(notified)[0]!.annotationId;
    assert.deepEqual(await stored(notifiedId), [1, 1, 1]);
    const [recorded] = (await app.dataSource.query(
      `SELECT (SELECT count(*) FROM activity WHERE api_key_id = '${key.apiKey}' AND target_entity_id = '${notifiedId}') AS activities,
        (SELECT count(*) FROM outbox_message WHERE api_key_id = '${key.apiKey}' AND payload LIKE '%${notifiedId}%') AS messages`,
    )) as { activities: number | string; messages: number | string }[];
    assert.deepEqual([Number(recorded!.activities), Number(recorded!.messages)], [1, 1]);
    const keyReads = notifying.filter((q) => /\bFROM "?api_key"? WHERE/.test(q));
    assert.equal(keyReads.length, 1, notifying.join('\n'));
    assert.match(keyReads[0]!, /settings.*email_config/s);
    if (postgres) {
      const writes = notifying.filter((q) => !/^SELECT/.test(q));
      assert.equal(writes.length, 2, notifying.join('\n'));
      assert.match(writes[0]!, /^INSERT INTO comment_counter/);
      assert.match(
        writes[1]!,
        /^WITH write_0 AS \(INSERT INTO comment_annotation.*INSERT INTO activity.*INSERT INTO outbox_message.*INSERT INTO outbox_delivery/s,
      );
      assert.ok(!notifying.includes('START TRANSACTION'), notifying.join('\n'));
    }
  });
});
