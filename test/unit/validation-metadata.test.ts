import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getMetadataStorage, IsInt, IsString, validate } from 'class-validator';
import { memoizeValidationMetadata } from '../../src/common/validation-metadata.js';

class Base {
  @IsString()
  name!: unknown;
}

class Derived extends Base {
  @IsInt()
  count!: unknown;
}

const failing = async (value: object) => (await validate(value)).map((error) => error.property).sort();

describe('validation rules looked up once per class', () => {
  memoizeValidationMetadata();

  it('answers the same rules again without looking them up', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Derived, '', false, false);
    assert.equal(storage.getTargetValidationMetadatas(Derived, '', false, false), first, 'kept');
    assert.equal(storage.groupByPropertyName(first), storage.groupByPropertyName(first), 'grouped once');
    assert.notEqual(storage.getTargetValidationMetadatas(Derived, '', true, false), first, 'other options, other rules');
  });

  it('still applies inherited rules', async () => {
    assert.deepEqual(await failing(Object.assign(new Derived(), { name: 1, count: 'x' })), ['count', 'name']);
    assert.deepEqual(await failing(Object.assign(new Derived(), { name: 'n', count: 2 })), []);
  });

  it('sees a rule declared after the first validation', async () => {
    const late = Object.assign(new Derived(), { name: 'n', count: 2, extra: 5 });
    assert.deepEqual(await failing(late), []);
    IsString()(Derived.prototype, 'extra');
    assert.deepEqual(await failing(late), ['extra'], 'the kept rules were dropped when one was added');
  });
});
