import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEmailConfigChange, neverConfiguredEmail } from '../../src/workspace/key-configs.js';
import { defaultTriggers, EVENT_TYPES } from '../../src/common/event-catalogue.js';

describe('first-enable trigger seeding (contract part 3)', () => {
  it('turns on standard comment and huddle triggers only', () => {
    const triggers = defaultTriggers();
    assert.deepEqual(Object.keys(triggers).sort(), [...EVENT_TYPES].sort());
    assert.equal(triggers['comment_annotation.add'], true);
    assert.equal(triggers['comment.reaction_add'], true);
    assert.equal(triggers['comment_annotation.suggestion_accept'], false);
    assert.equal(triggers['comment_annotation.suggestion_reject'], false);
    assert.equal(triggers['huddle.create'], true);
    assert.equal(triggers['crdt.update_data'], false);
    assert.equal(triggers['recorder.done'], false);
  });

  const cases: { name: string; change: Parameters<typeof applyEmailConfigChange>[1]; seeded: boolean; type: string; use: boolean }[] = [
    { name: 'enabling seeds type custom and triggers', change: { useEmailService: true }, seeded: true, type: 'custom', use: true },
    { name: 'type custom seeds and enables', change: { emailServiceConfig: { type: 'custom' } }, seeded: true, type: 'custom', use: true },
    {
      name: 'request values win over the seeded defaults',
      change: { useEmailService: true, emailServiceConfig: { type: 'thirdparty' } },
      seeded: true,
      type: 'thirdparty',
      use: true,
    },
    {
      name: 'a change that does not enable seeds nothing',
      change: { emailServiceConfig: { fromCompany: 'Acme' } },
      seeded: false,
      type: 'default',
      use: false,
    },
    { name: 'disabling seeds nothing', change: { useEmailService: false }, seeded: false, type: 'default', use: false },
  ];
  for (const { name, change, seeded, type, use } of cases) {
    it(name, () => {
      const next = applyEmailConfigChange(neverConfiguredEmail(), change);
      assert.equal(next.emailServiceConfig.triggers !== undefined, seeded);
      assert.equal(next.emailServiceConfig.type, type);
      assert.equal(next.useEmailService, use);
    });
  }

  it('keeps non-trigger fields and merges sent triggers over stored ones', () => {
    const stored = { ...neverConfiguredEmail(), emailServiceConfig: { ...neverConfiguredEmail().emailServiceConfig, fromCompany: 'Kept' } };
    const next = applyEmailConfigChange(stored, { useEmailService: true, emailServiceConfig: { triggers: { 'comment.add': false } } });
    assert.equal(next.emailServiceConfig.fromCompany, 'Kept');
    assert.equal(next.emailServiceConfig.triggers?.['comment.add'], false);
    assert.equal(next.emailServiceConfig.triggers?.['comment_annotation.add'], true);
    const again = applyEmailConfigChange(next, { useEmailService: true });
    assert.equal(again.emailServiceConfig.triggers?.['comment.add'], false, 'seeding happens only once');
  });
});
