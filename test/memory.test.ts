import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentFor, createKey, expectError, expectSuccess, withKeyedApp } from './factories/workspace.js';
import { planOf, statementOf } from './helpers/query-plan.js';

const DAY = 86_400_000;
const user = (userId: string) => ({ userId, name: userId });

describe('memory: suggested decisions from past judgments (contract part 8)', () => {
  const keyed = withKeyedApp();
  const call = (path: string, data: unknown) => keyed.call(path, data);
  let n = 0;
  /** A decision activity: `comment_annotation.approve` / `suggestion_reject` with its reasoning. */
  const judge = async (
    organizationId: string,
    documentId: string,
    side: 'approve' | 'reject',
    reasoning: string,
    options: { reviewer?: string; timestamp?: number; id?: string } = {},
  ) => {
    const id = options.id ?? `j${++n}`;
    expectSuccess(
      await call('/v2/activities/add', {
        organizationId,
        documentId,
        activities: [
          {
            id,
            featureType: 'comment',
            actionType: side === 'approve' ? 'comment_annotation.approve' : 'comment_annotation.suggestion_reject',
            actionUser: user(options.reviewer ?? `reviewer${n}`),
            entityData: { reasoning },
            ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
          },
        ],
      }),
    );
    return id;
  };
  const suggest = async (data: Record<string, unknown>) => {
    const response = await call('/v2/memory/suggest', data);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.deepEqual(Object.keys(response.body.result).sort(), ['conflict', 'primary'], 'the result holds only primary and conflict');
    return response.body.result as { primary: Record<string, any> | null; conflict: Record<string, any> | null };
  };

  it('a document where reviewers rejected missing alt text three times answers reject, with those reasons', async () => {
    const old = Date.now() - 10 * DAY;
    await judge('mem-org', 'landing', 'reject', 'Rejected: the hero image is missing alt text', { timestamp: old });
    await judge('mem-org', 'landing', 'reject', 'Missing alt text on the product photos', { timestamp: old });
    await judge('mem-org', 'landing', 'reject', 'Images need alt text for screen readers', { timestamp: old, reviewer: 'reviewer1' });
    await judge('mem-org', 'landing', 'approve', 'Copy reads well', { timestamp: old });
    const { primary, conflict } = await suggest({ query: 'image without alt text', organizationId: 'mem-org', documentId: 'landing' });
    assert.ok(primary);
    assert.equal(primary.recommendation, 'reject');
    assert.equal(primary.basedOn, 3);
    assert.equal(primary.scope, 'document');
    assert.equal(primary.scopeLabel, 'This document');
    // The third rejection is by the first rejection's reviewer.
    assert.equal(primary.uniqueReviewers, 2);
    assert.equal(primary.topReasons.length, 3);
    assert.ok(primary.topReasons.includes('Missing alt text on the product photos'));
    assert.ok(primary.confidence > 0 && primary.confidence < 1);
    assert.deepEqual(primary.caveats, []);
    assert.equal(conflict, null);
  });

  it('an organization split 3/3 fills conflict and the caveat', async () => {
    for (const doc of ['a', 'b', 'c']) {
      await judge('split-org', doc, 'approve', 'Dark mode colours look consistent', { timestamp: Date.now() - 5 * DAY });
      await judge('split-org', doc, 'reject', 'Dark mode colours fail contrast', { timestamp: Date.now() - 5 * DAY });
    }
    const { primary, conflict } = await suggest({ query: 'dark mode colours', organizationId: 'split-org' });
    assert.ok(primary && conflict);
    assert.equal(primary.scope, 'organization');
    assert.notEqual(primary.recommendation, conflict.recommendation);
    assert.equal(primary.basedOn, 3);
    assert.equal(conflict.basedOn, 3);
    assert.ok(primary.caveats.includes('Conflicting judgments: 3 approve vs 3 reject'));
    assert.ok(conflict.caveats.includes('Conflicting judgments: 3 approve vs 3 reject'));
    assert.ok(primary.confidence < 0.5, `split evidence gives low confidence (${primary.confidence})`);
  });

  it('a single judgment answers primary: null, and so does a query of stop words only', async () => {
    await judge('single-org', 'doc', 'approve', 'Pricing table is accurate');
    assert.deepEqual(await suggest({ query: 'pricing table', organizationId: 'single-org' }), { primary: null, conflict: null });
    assert.deepEqual(await suggest({ query: 'the and of', organizationId: 'mem-org' }), { primary: null, conflict: null });
  });

  it('warns of a stale pattern when most supporting judgments are older than six months', async () => {
    const year = Date.now() - 365 * DAY;
    for (let i = 0; i < 3; i++) await judge('stale-org', 'doc', 'approve', 'Legacy footer links are fine', { timestamp: year + i });
    const { primary } = await suggest({ query: 'footer links', organizationId: 'stale-org' });
    assert.ok(primary);
    assert.ok(primary.caveats.includes('Stale pattern: >70% of supporting data is older than 6 months'), JSON.stringify(primary.caveats));
  });

  it('warns when judgments of the last 48 hours changed the balance', async () => {
    const month = Date.now() - 30 * DAY;
    for (let i = 0; i < 2; i++) await judge('recent-org', 'doc', 'approve', 'Autoplay video is acceptable', { timestamp: month });
    for (let i = 0; i < 3; i++) await judge('recent-org', 'doc', 'reject', 'Autoplay video annoys users');
    const { primary } = await suggest({ query: 'autoplay video', organizationId: 'recent-org' });
    assert.equal(primary?.recommendation, 'reject');
    assert.ok(primary!.caveats.includes('Recent judgments in the last 48 hours changed the balance'));
  });

  it('falls back from the document to its organization when the document has too little evidence', async () => {
    await judge('fallback-org', 'thin-doc', 'reject', 'Tooltip text truncated');
    await judge('fallback-org', 'other-doc', 'reject', 'Tooltip text overflows');
    await judge('fallback-org', 'other-doc', 'reject', 'Tooltip hides the button');
    const { primary } = await suggest({ query: 'tooltip text', organizationId: 'fallback-org', documentId: 'thin-doc' });
    assert.equal(primary?.scope, 'organization');
    assert.equal(primary?.scopeLabel, 'This organization');
    assert.equal(primary?.basedOn, 3);
    // And from an organization with nothing relevant to all content.
    const broad = await suggest({ query: 'tooltip text', organizationId: 'empty-org' });
    assert.equal(broad.primary?.scope, 'apiKey');
    assert.equal(broad.primary?.scopeLabel, 'All content');
  });

  it('matches by stem: "rejecting" finds "rejected"', async () => {
    await judge('stem-org', 'doc', 'reject', 'Reviewers rejected the onboarding checklist');
    await judge('stem-org', 'doc', 'reject', 'We rejected this checklist twice');
    const { primary } = await suggest({ query: 'rejecting', organizationId: 'stem-org' });
    assert.equal(primary?.recommendation, 'reject');
    assert.equal(primary?.basedOn, 2);
  });

  it('judgments follow their activities: custom decisions, updates, overwrites and deletes', async () => {
    const org = 'life-org';
    const custom = (id: string, decision: string, reasoning: string) => ({
      id,
      featureType: 'custom',
      actionType: 'review.done',
      targetEntityId: id,
      actionUser: user('rita'),
      entityData: { decision, reasoning },
    });
    expectSuccess(
      await call('/v2/activities/add', {
        organizationId: org,
        documentId: 'doc',
        activities: [
          custom('c1', 'endorse', 'Glossary terms consistent'),
          custom('c2', 'document_approved', 'Glossary complete'),
          custom('c3', 'comment', 'Glossary note'),
        ],
      }),
    );
    expectSuccess(
      await call('/v2/activities/add', {
        organizationId: org,
        documentId: 'doc',
        activities: [{ id: 'c4', featureType: 'comment', actionType: 'comment.add', actionUser: user('x'), entityData: { text: 'Glossary' } }],
      }),
    );
    const judgments = async () =>
      expectSuccess(await call('/v2/memory/judgments/query', { organizationId: org }), 'Judgments retrieved successfully.').data as {
        id: string;
        decision: string;
        reason: string;
      }[];
    assert.deepEqual((await judgments()).map((j) => [j.id, j.decision]).sort(), [
      ['c1', 'endorse'],
      ['c2', 'document_approved'],
      ['c3', 'comment'],
    ]);
    assert.equal((await suggest({ query: 'glossary', organizationId: org })).primary?.basedOn, 2);

    // An update of entityData rewrites the judgment (here: takes the decision away).
    expectSuccess(await call('/v2/activities/update', { organizationId: org, activities: [{ id: 'c2', entityData: { reasoning: 'no decision any more' } }] }));
    assert.deepEqual((await judgments()).map((j) => j.id).sort(), ['c1', 'c3']);
    expectSuccess(
      await call('/v2/activities/update', {
        organizationId: org,
        activities: [{ id: 'c1', entityData: { decision: 'rejected', reasoning: 'Glossary outdated' } }],
      }),
    );
    assert.equal((await judgments()).find((j) => j.id === 'c1')?.reason, 'Glossary outdated');
    // An overwrite and a delete.
    expectSuccess(
      await call('/v2/activities/add', {
        organizationId: org,
        documentId: 'doc',
        activities: [{ id: 'c3', featureType: 'reaction', actionType: 'reaction.add', actionUser: user('x') }],
      }),
    );
    expectSuccess(await call('/v2/activities/delete', { organizationId: org, activityIds: ['c1'] }));
    assert.deepEqual(await judgments(), []);
  });

  it('judgments/query filters, orders newest first and limits', async () => {
    const org = 'query-org';
    await judge(org, 'd1', 'approve', 'one', { timestamp: 1_000, reviewer: 'amy' });
    await judge(org, 'd1', 'reject', 'two', { timestamp: 2_000, reviewer: 'ben' });
    await judge(org, 'd2', 'reject', 'three', { timestamp: 3_000, reviewer: 'amy' });
    const query = async (data: Record<string, unknown>) =>
      (expectSuccess(await call('/v2/memory/judgments/query', { organizationId: org, ...data })).data as { reason: string }[]).map((j) => j.reason);
    assert.deepEqual(await query({}), ['three', 'two', 'one']);
    assert.deepEqual(await query({ documentId: 'd1' }), ['two', 'one']);
    assert.deepEqual(await query({ decision: 'rejected' }), ['three', 'two']);
    assert.deepEqual(await query({ reviewerId: 'amy', limit: 1 }), ['three']);
    const [record] = expectSuccess(await call('/v2/memory/judgments/query', { organizationId: org, limit: 1 })).data;
    assert.deepEqual(Object.keys(record).sort(), [
      'actionUser',
      'agent',
      'annotationId',
      'confidence',
      'contentType',
      'createdAt',
      'decision',
      'documentId',
      'id',
      'judgeType',
      'organizationId',
      'reason',
      'reasoning',
      'recommendation',
      'recordId',
      'reviewerId',
      'timestamp',
    ]);
    assert.equal(record.recommendation, 'reject');
  });

  it('judgments/query of one organization, or of one reviewer there, reads only those judgments, in order, through an index', async () => {
    await judge('plan-org', 'd1', 'approve', 'planned', { timestamp: 5_000, reviewer: 'plan-reviewer' });
    const dataSource = keyed.app.dataSource;
    for (const [filter, index] of [
      [{}, 'judgment_organization_recent_idx'],
      [{ reviewerId: 'plan-reviewer' }, 'judgment_reviewer_recent_idx'],
    ] as const) {
      const read = await statementOf(dataSource, /FROM judgment j/, async () =>
        expectSuccess(await call('/v2/memory/judgments/query', { organizationId: 'plan-org', ...filter })),
      );
      const plan = await planOf(dataSource, read);
      assert.match(plan, new RegExp(index), plan);
      assert.doesNotMatch(plan, /TEMP B-TREE|Sort Key: [^\n]*timestamp/, plan);
    }
  });

  it("judgments/query answers upstream's results[] and total, and filters by judgeType, contentType and thread", async () => {
    const org = 'upstream-org';
    const decide = (id: string, entityData: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      call('/v2/activities/add', {
        organizationId: org,
        documentId: 'doc-42',
        activities: [
          {
            id,
            featureType: 'custom',
            actionType: 'custom',
            actionUser: { userId: 'u_sarah', name: 'Sarah Lee', email: 'sarah@acme.com' },
            entityData,
            ...extra,
          },
        ],
      });
    expectSuccess(
      await decide(
        'h1',
        { decision: 'approved', reasoning: 'Approved after fixing the citation.', confidence: 0.81, contentType: 'marketing-copy', annotationId: 'thread-1' },
        { timestamp: 1_000, targetEntityId: 'entity-h1' },
      ),
    );
    expectSuccess(
      await decide(
        'a1',
        { decision: 'rejected', reasoning: 'Tone is off.', agent: { name: 'reviewer-bot', model: 'm1' }, contentType: 'marketing-copy' },
        { timestamp: 2_000, targetEntityId: 'thread-1' },
      ),
    );
    expectSuccess(
      await decide(
        'h2',
        { decision: 'rejected', reasoning: 'Legal needs a look.', judgeType: 'human', contentType: 'contract' },
        { timestamp: 3_000, targetEntityId: 'thread-2' },
      ),
    );
    // confidence outside [0, 1] is not a confidence.
    expectSuccess(
      await decide('a2', { decision: 'agree', reasoning: 'Fine.', judgeType: 'agent', confidence: 7 }, { timestamp: 4_000, targetEntityId: 'entity-a2' }),
    );

    const query = async (data: Record<string, unknown>) => {
      const result = expectSuccess(await call('/v2/memory/judgments/query', { organizationId: org, ...data }), 'Judgments retrieved successfully.');
      assert.deepEqual(result.results, result.data);
      assert.equal(result.total, result.data.length);
      return result.data as Record<string, any>[];
    };
    const [h1] = await query({ reviewerId: 'u_sarah', contentType: 'marketing-copy', judgeType: 'human' });
    assert.deepEqual(h1, {
      id: 'h1',
      organizationId: org,
      documentId: 'doc-42',
      decision: 'approved',
      recommendation: 'approve',
      reviewerId: 'u_sarah',
      reason: 'Approved after fixing the citation.',
      timestamp: 1_000,
      recordId: 'h1',
      reasoning: 'Approved after fixing the citation.',
      confidence: 0.81,
      judgeType: 'human',
      contentType: 'marketing-copy',
      annotationId: 'thread-1',
      actionUser: { userId: 'u_sarah', name: 'Sarah Lee', email: 'sarah@acme.com' },
      createdAt: 1_000,
      agent: null,
    });
    assert.deepEqual(
      (await query({ judgeType: 'agent' })).map((j) => [j.id, j.agent, j.confidence]),
      [
        ['a2', null, null],
        ['a1', { name: 'reviewer-bot', model: 'm1' }, null],
      ],
    );
    assert.deepEqual(
      (await query({ contentType: 'marketing-copy' })).map((j) => j.id),
      ['a1', 'h1'],
    );
    // One thread: its newest `limit`, oldest first.
    assert.deepEqual(
      (await query({ annotationId: 'thread-1' })).map((j) => j.id),
      ['h1', 'a1'],
    );
    assert.deepEqual(
      (await query({ annotationId: 'thread-1', limit: 1 })).map((j) => j.id),
      ['a1'],
    );
    assert.deepEqual(await query({ annotationId: 'thread-1', judgeType: 'human', contentType: 'contract' }), []);
    // An update of the activity moves the judgment's facets with it.
    expectSuccess(
      await call('/v2/activities/update', {
        organizationId: org,
        activities: [{ id: 'h2', entityData: { decision: 'rejected', reasoning: 'Legal needs a look.', contentType: 'marketing-copy' } }],
      }),
    );
    assert.deepEqual(
      (await query({ contentType: 'marketing-copy' })).map((j) => j.id),
      ['h2', 'a1', 'h1'],
    );

    expectError(await call('/v2/memory/judgments/query', { judgeType: 'robot' }), 400, 'INVALID_ARGUMENT', /^data\.judgeType must be one of/);
    expectError(await call('/v2/memory/judgments/query', { contentType: 5 }), 400, 'INVALID_ARGUMENT', /^data\.contentType must be a string/);
    expectError(
      await call('/v2/memory/judgments/query', { annotationId: 'thread-1' }),
      400,
      'INVALID_ARGUMENT',
      'data.annotationId requires data.organizationId.',
    );
  });

  it('refuses a missing or empty query, and a documentId without organizationId', async () => {
    expectError(await call('/v2/memory/suggest', {}), 400, 'INVALID_ARGUMENT', 'data.query must be a string');
    expectError(await call('/v2/memory/suggest', { query: '  ' }), 400, 'INVALID_ARGUMENT', 'data.query must be a non-empty string');
    expectError(await call('/v2/memory/suggest', { query: 'x', documentId: 'd' }), 400, 'INVALID_ARGUMENT', 'data.documentId requires data.organizationId.');
    expectError(await call('/v2/memory/judgments/query', { documentId: 'd' }), 400, 'INVALID_ARGUMENT', 'data.documentId requires data.organizationId.');
    expectError(await call('/v2/memory/judgments/query', { limit: 101 }), 400, 'INVALID_ARGUMENT', 'data.limit must be an integer between 1 and 100');
    expectError(await call('/v2/memory/judgments/query', { decision: 'maybe' }), 400, 'INVALID_ARGUMENT', /^data\.decision must be one of/);
  });

  it('another key draws on none of these judgments', async () => {
    const other = agentFor(keyed.app, await createKey(keyed.app));
    const response = await other('/v2/memory/suggest', { query: 'alt text image', organizationId: 'mem-org', documentId: 'landing' });
    assert.deepEqual(response.body, { result: { primary: null, conflict: null } });
    assert.deepEqual(expectSuccess(await other('/v2/memory/judgments/query', {})).data, []);
  });
  it("a suggestion's confidence depends on the caller's key's judgments alone", async () => {
    const at = Date.now() - 3 * DAY;
    await judge('iso-org', 'checkout', 'reject', 'Broken link in the footer', { timestamp: at });
    await judge('iso-org', 'checkout', 'reject', 'The footer link is broken again', { timestamp: at });
    await judge('iso-org', 'checkout', 'approve', 'Footer looks fine now', { timestamp: at });
    const query = { query: 'broken footer link', organizationId: 'iso-org', documentId: 'checkout' };
    const before = (await suggest(query)).primary!;
    // Another key's judgments use the same words, often.
    const other = agentFor(keyed.app, await createKey(keyed.app));
    for (let i = 0; i < 30; i++) {
      expectSuccess(
        await other('/v2/activities/add', {
          organizationId: 'iso-org',
          documentId: 'checkout',
          activities: [
            {
              featureType: 'comment',
              actionType: i % 3 ? 'comment_annotation.approve' : 'comment_annotation.suggestion_reject',
              actionUser: user(`other${i}`),
              entityData: { reasoning: `footer link ${i % 2 ? 'broken' : 'fine'} in build ${i}` },
            },
          ],
        }),
      );
    }
    const after = (await suggest(query)).primary!;
    assert.deepEqual(
      [after.recommendation, after.confidence, after.basedOn, after.topReasons],
      [before.recommendation, before.confidence, before.basedOn, before.topReasons],
    );
  });
});
