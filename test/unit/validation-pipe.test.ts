import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createValidationPipe } from '../../src/common/validation/pipe.js';
import { IsText } from '../../src/common/validation/rules.js';
import { wireValueProblem } from '../../src/common/wire-values.js';

class NameRequest {
  @IsText(20)
  name!: string;
}

const pipe = createValidationPipe();
const transform = (value: unknown) => pipe.transform(value, { type: 'body', metatype: NameRequest });

describe('the validation pipe skips its own walks only for values wireValueProblem passed', () => {
  it('a value nobody checked still has its prototype keys stripped (no prototype change through them)', async () => {
    const unchecked = JSON.parse('{"name": "n", "__proto__": {"polluted": true}}') as object;
    const request = (await transform(unchecked)) as NameRequest & { polluted?: unknown };
    assert.ok(request instanceof NameRequest);
    assert.equal(request.polluted, undefined);
  });

  it('wireValueProblem refuses what the skipped walks look for: prototype keys, gaps in arrays, binary values', () => {
    assert.equal(wireValueProblem(JSON.parse('{"a": {"__proto__": {}}}')), 'data.a.__proto__: the key __proto__ is not allowed');
    // eslint-disable-next-line no-sparse-arrays
    assert.equal(wireValueProblem({ list: [1, , 3] }), 'data.list[1] is missing (an array must not have gaps)');
    assert.equal(wireValueProblem({ file: Buffer.from('x') }), 'data.file must be JSON data, not binary');
    assert.equal(wireValueProblem({ name: 'n', list: [1, 2] }), undefined);
  });

  it('unknown fields named like Object.prototype methods are unknown fields too', async () => {
    for (const key of ['hasOwnProperty', 'isPrototypeOf', '__defineGetter__', 'toString']) {
      const value = { name: 'n', [key]: 'x' };
      assert.equal(wireValueProblem(value), undefined);
      await assert.rejects(transform(value), { message: `Unknown field: data.${key}` }, key);
    }
  });

  it('a value that passed is validated as before', async () => {
    const checked = { name: 'n' };
    assert.equal(wireValueProblem(checked), undefined);
    assert.deepEqual({ ...((await transform(checked)) as object) }, { name: 'n' });
    const tooLong = { name: 'x'.repeat(21) };
    assert.equal(wireValueProblem(tooLong), undefined);
    await assert.rejects(transform(tooLong), /data\.name must be at most 20 characters/);
  });
});
