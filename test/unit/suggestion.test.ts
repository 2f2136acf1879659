import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseScope, leadingSide, NO_EVIDENCE, suggestionsFor, wilsonLowerBound, type Evidence, type SideEvidence } from '../../src/memory/suggestion.js';

const side = (count: number, fields: Partial<SideEvidence> = {}): SideEvidence => ({
  ...NO_EVIDENCE,
  count,
  relevance: count,
  weight: count * 0.8,
  reviewers: count,
  ...fields,
});

/** A small deterministic generator, so a failing case can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('memory: choosing a side and a scope (contract part 8)', () => {
  const table: [string, { count: number; relevance: number }, { count: number; relevance: number }, 'approve' | 'reject' | null][] = [
    ['nothing relevant', { count: 0, relevance: 0 }, { count: 0, relevance: 0 }, null],
    ['more approvals lead', { count: 3, relevance: 1 }, { count: 2, relevance: 9 }, 'approve'],
    ['more rejections lead', { count: 1, relevance: 5 }, { count: 2, relevance: 1 }, 'reject'],
    ['a count tie goes to the larger relevance', { count: 2, relevance: 3 }, { count: 2, relevance: 2 }, 'approve'],
    ['a full tie is the cautious reject', { count: 2, relevance: 2 }, { count: 2, relevance: 2 }, 'reject'],
  ];
  for (const [name, approve, reject, expected] of table) it(name, () => assert.equal(leadingSide(approve, reject), expected));

  it('a scope answers only when its leading side has at least two judgments', () => {
    assert.equal(chooseScope({ approve: side(1), reject: NO_EVIDENCE }), null);
    assert.equal(chooseScope({ approve: side(1), reject: side(1) }), null);
    assert.equal(chooseScope({ approve: side(2), reject: side(1) }), 'approve');
  });

  it('conflict needs two judgments on each side', () => {
    assert.equal(suggestionsFor('document', { approve: side(3), reject: side(1) }, 'approve').conflict, null);
    const { primary, conflict } = suggestionsFor('organization', { approve: side(3), reject: side(2) }, 'approve');
    assert.equal(conflict?.recommendation, 'reject');
    assert.deepEqual(primary.caveats, ['Conflicting judgments: 3 approve vs 2 reject']);
    assert.equal(primary.scopeLabel, 'This organization');
  });
});

describe('memory: confidence (Wilson lower bound of the weighted share)', () => {
  it('stays within [0, 1] and below the observed share', () => {
    const next = random(7);
    for (let i = 0; i < 500; i++) {
      const successes = next() * 50;
      const total = successes + next() * 50;
      const bound = wilsonLowerBound(successes, total);
      assert.ok(bound >= 0 && bound <= 1);
      if (total > 0) assert.ok(bound <= successes / total + 1e-12);
    }
  });

  it('grows with agreeing evidence and shrinks with dissent', () => {
    const next = random(42);
    for (let i = 0; i < 1000; i++) {
      const lead = 2 + Math.floor(next() * 20);
      const other = Math.floor(next() * lead);
      const evidence: Evidence = { approve: side(lead, { weight: lead * (0.5 + next() / 2) }), reject: side(other, { weight: other * (0.5 + next() / 2) }) };
      const confidence = (e: Evidence) => suggestionsFor('apiKey', e, 'approve').primary.confidence;
      const before = confidence(evidence);
      const added = 0.05 + next() * 0.95; // one judgment's weight, (0, 1]
      const agreeing = confidence({ ...evidence, approve: side(lead + 1, { weight: evidence.approve.weight + added }) });
      const dissenting = confidence({ ...evidence, reject: side(other + 1, { weight: evidence.reject.weight + added }) });
      assert.ok(agreeing >= before, `agreeing: ${agreeing} < ${before} (${JSON.stringify(evidence)}, +${added})`);
      assert.ok(dissenting <= before, `dissenting: ${dissenting} > ${before} (${JSON.stringify(evidence)}, +${added})`);
    }
  });
});
