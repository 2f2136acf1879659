import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newSortableId } from '../../src/common/ids.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe('sortable ids', () => {
  it('are ULIDs with their prefix, unique and in creation order', () => {
    const ids = Array.from({ length: 20_000 }, () => newSortableId('act_'));
    for (const id of ids) assert.match(id.slice(4), ULID, id);
    assert.ok(ids.every((id) => id.startsWith('act_')));
    assert.equal(new Set(ids).size, ids.length, 'unique');
    assert.deepEqual([...ids].sort(), ids, 'sorted as made, within a millisecond too');
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
