import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decisionOf, judgmentText, renderTemplate, sideOf } from '../../src/memory/decisions.js';

describe('memory: decisions and the text of a judgment (contract part 8)', () => {
  it('maps decision actions and custom decisions, and which side each counts for', () => {
    const table: [Parameters<typeof decisionOf>[0], string | undefined][] = [
      [{ featureType: 'comment', actionType: 'comment_annotation.approve' }, 'approved'],
      [{ featureType: 'comment', actionType: 'comment_annotation.suggestion_accept' }, 'approved'],
      [{ featureType: 'comment', actionType: 'comment_annotation.suggestion_reject' }, 'rejected'],
      [{ featureType: 'comment', actionType: 'comment.accept' }, 'agree'],
      [{ featureType: 'comment', actionType: 'comment.reject' }, 'disagree'],
      [{ featureType: 'comment', actionType: 'comment.add' }, undefined],
      [{ featureType: 'custom', actionType: 'x', entityData: { decision: 'endorse' } }, 'endorse'],
      [{ featureType: 'custom', actionType: 'x', entityData: { decision: 'maybe' } }, undefined],
    ];
    for (const [activity, expected] of table) assert.equal(decisionOf(activity), expected, JSON.stringify(activity));
    assert.deepEqual(
      ['approved', 'agree', 'endorse', 'document_approved', 'rejected', 'disagree', 'document_rejected', 'comment', 'resolve', 'in_progress'].map((d) =>
        sideOf(d as never),
      ),
      ['approve', 'approve', 'approve', 'approve', 'reject', 'reject', 'reject', null, null, null],
    );
  });

  it('takes the reasoning, comment texts (own and in comments[]) and the rendered message', () => {
    const { text, reason } = judgmentText({
      entityData: { reasoning: 'Too vague', text: 'Fix the intro' },
      entityTargetData: { comments: [{ commentText: 'First reply' }, { body: 'Second reply' }, 'not an object'] },
      displayMessageTemplate: '{{user.name}} rejected {{missing}}it',
      displayMessageTemplateData: { user: { name: 'Ana' } },
    });
    assert.equal(text, 'Too vague\nFix the intro\nFirst reply\nSecond reply\nAna rejected it');
    assert.equal(reason, 'Too vague');
    assert.equal(judgmentText({ entityTargetData: 'Plain comment' }).reason, 'Plain comment');
    assert.equal(judgmentText({ displayMessageTemplate: 'Only a message' }).reason, 'Only a message');
    assert.deepEqual(judgmentText({}), { text: '', reason: null });
    assert.equal(renderTemplate('{{ a.b }} and {{c}}', { a: { b: 2 }, c: true }), '2 and true');
  });
});
