import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidOptionValue, oneOf, shown, table, when, wholeNumber } from '../../src/cli/output.js';

describe('admin CLI output and option values', () => {
  it('takes whole numbers in range only, as commander reports invalid arguments', () => {
    assert.deepEqual(
      ['1', '100', '10000', '007'].map((value) => wholeNumber(value, 1, 10_000)),
      [1, 100, 10_000, 7],
    );
    for (const value of ['0', '-3', '10001', 'x', '', '1.5', '1e3', '0x10', 'Infinity', '99999999999999999999']) {
      assert.throws(
        () => wholeNumber(value, 1, 10_000),
        (error: unknown) => {
          assert.ok(error instanceof InvalidOptionValue, value);
          // commander turns an error with this code into "error: option '--limit <n>' argument … is invalid. <message>" and exit code 1.
          assert.equal((error as InvalidOptionValue).code, 'commander.invalidArgument');
          assert.equal((error as InvalidOptionValue).exitCode, 1);
          assert.equal((error as Error).message, 'It must be a whole number from 1 to 10000.');
          return true;
        },
        value,
      );
    }
  });

  it('takes one of the allowed values, naming them otherwise', () => {
    assert.equal(oneOf('paid', ['free', 'paid']), 'paid');
    for (const value of ['gold', 'Paid', '', ' paid']) assert.throws(() => oneOf(value, ['free', 'paid']), /^Error: Allowed values: free, paid\.$/);
  });

  it('prints outside text without control characters, so it cannot move the cursor or forge a line', () => {
    assert.equal(shown('Docs\u001b[2J\nnext\r\u0000\u007f\u009b\u202etxt\u2028'), 'Docs\\u001b[2J\\u000anext\\u000d\\u0000\\u007f\\u009b\\u202etxt\\u2028');
    assert.equal(shown('Café – 日本 ✓'), 'Café – 日本 ✓');
  });

  it('aligns columns under their header, the last one running free', () => {
    assert.deepEqual(
      table(
        ['ID', 'PLAN', 'NAME'],
        [
          ['a', 'free', 'x y'],
          ['abcdef', 'paid', ''],
        ],
      ),
      ['ID      PLAN  NAME', 'a       free  x y', 'abcdef  paid'],
    );
    assert.equal(when(Date.UTC(2025, 0, 2, 3, 4, 5, 678)), '2025-01-02T03:04:05Z');
  });
});
