import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newSortableId } from '../../src/common/ids.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('sortable ids', () => {
  it('are ULIDs with their prefix, unique and in creation order', () => {
    const ids = Array.from({ length: 20_000 }, () => newSortableId('act_'));
    for (const id of ids) assert.match(id.slice(4), ULID, id);
    assert.ok(ids.every((id) => id.startsWith('act_')));
    assert.equal(new Set(ids).size, ids.length, 'unique');
    assert.deepEqual([...ids].sort(), ids, 'sorted as made, within a millisecond too');
  });

  it('count up by one in the last place within a millisecond (the 80 random bits encode in order)', () => {
    const ids = Array.from({ length: 2_000 }, () => newSortableId());
    const randomPart = (id: string) => [...id.slice(10)].reduce((bits, char) => bits * 32n + BigInt(CROCKFORD.indexOf(char)), 0n);
    let sameMillisecond = 0;
    for (let i = 1; i < ids.length; i++) {
      if (ids[i]!.slice(0, 10) !== ids[i - 1]!.slice(0, 10)) continue;
      sameMillisecond++;
      assert.equal(randomPart(ids[i]!) - randomPart(ids[i - 1]!), 1n, `${ids[i - 1]} → ${ids[i]}`);
    }
    assert.ok(sameMillisecond > 100, `${sameMillisecond} pairs shared a millisecond`);
  });

  it('draw fresh randomness for each new millisecond (the pool is not handed out twice)', async () => {
    const randomParts = new Set<string>();
    for (let i = 0; i < 600; i++) {
      randomParts.add(newSortableId().slice(10));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    assert.equal(randomParts.size, 600);
  });
});
