import assert from 'node:assert/strict';
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { AppConfig } from '../../src/config/app-config.js';
import { ApiError } from '../../src/common/errors.js';
import { PageTokens } from '../../src/common/paging.js';
import { safeEqual, Secrets } from '../../src/common/secrets.js';

const secretsWith = (key = randomBytes(32)) => new Secrets({ masterKey: key } as AppConfig);

describe('secrets at rest', () => {
  it('round-trips, with a fresh IV each time', () => {
    const secrets = secretsWith();
    const a = secrets.encrypt('token-1');
    assert.notEqual(a, secrets.encrypt('token-1'));
    assert.equal(secrets.decrypt(a), 'token-1');
  });

  it('refuses tampered ciphertext and another master key', () => {
    const secrets = secretsWith();
    const sealed = secrets.encrypt('token-1');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('other').toString('base64url');
    assert.throws(() => secrets.decrypt(parts.join('.')));
    assert.throws(() => secretsWith().decrypt(sealed));
  });

  it('lookup hashes are deterministic per key and differ across keys', () => {
    const key = randomBytes(32);
    assert.equal(secretsWith(key).lookupHash('t'), secretsWith(key).lookupHash('t'));
    assert.notEqual(secretsWith(key).lookupHash('t'), secretsWith().lookupHash('t'));
    assert.notEqual(secretsWith(key).lookupHash('t'), secretsWith(key).lookupHash('u'));
  });

  it('a kept lookup hash is the keyed hash itself, the same past the number kept', () => {
    const key = randomBytes(32);
    const secrets = secretsWith(key);
    const lookupKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'secret-lookup', 32));
    const expected = (secret: string) => createHmac('sha256', lookupKey).update(secret, 'utf8').digest('base64url');
    for (let round = 0; round < 2; round++) for (let i = 0; i < 5000; i++) assert.equal(secrets.lookupHash(`tok_${i}`), expected(`tok_${i}`));
  });

  it('Secrets.fromKey gives the same keys as the injected Secrets under that master key (a rotation opens with one, seals with another)', () => {
    const key = randomBytes(32);
    const sealed = secretsWith(key).encrypt('token-1');
    assert.equal(Secrets.fromKey(key).decrypt(sealed), 'token-1');
    assert.equal(Secrets.fromKey(key).lookupHash('t'), secretsWith(key).lookupHash('t'));
    assert.throws(() => Secrets.fromKey(randomBytes(32)).decrypt(sealed));
    assert.throws(() => Secrets.fromKey(randomBytes(16)), /32 bytes/);
  });

  it('safeEqual compares exactly', () => {
    assert.equal(safeEqual('abc', 'abc'), true);
    assert.equal(safeEqual('abc', 'abd'), false);
    assert.equal(safeEqual('abc', 'abcd'), false);
  });
});

describe('page tokens (contract 1.7)', () => {
  const tokens = new PageTokens(secretsWith());
  const invalid = (run: () => unknown) =>
    assert.throws(run, (error: unknown) => error instanceof ApiError && error.code === 'INVALID_ARGUMENT' && error.message === 'Invalid page token.');

  it('round-trips the cursor for the same owner, operation and filters', () => {
    const token = tokens.encode('key-a', 'documents/get', { folderId: 'f', b: [1, 2] }, [123, 'doc-9']);
    assert.doesNotMatch(token, /doc-9/);
    assert.deepEqual(tokens.decode('key-a', 'documents/get', { b: [1, 2], folderId: 'f' }, token), [123, 'doc-9']);
  });

  it('refuses another owner, operation, filters, or any change to the token', () => {
    const token = tokens.encode('key-a', 'documents/get', { folderId: 'f' }, [1, 'x']);
    invalid(() => tokens.decode('key-b', 'documents/get', { folderId: 'f' }, token));
    invalid(() => tokens.decode('key-a', 'activities/get', { folderId: 'f' }, token));
    invalid(() => tokens.decode('key-a', 'documents/get', { folderId: 'g' }, token));
    invalid(() => tokens.decode('key-a', 'documents/get', {}, token));
    invalid(() => tokens.decode('key-a', 'documents/get', { folderId: 'f' }, `${token}x`));
    invalid(() => tokens.decode('key-a', 'documents/get', { folderId: 'f' }, token.slice(0, -1)));
    invalid(() => tokens.decode('key-a', 'documents/get', { folderId: 'f' }, 'garbage'));
    invalid(() => new PageTokens(secretsWith()).decode('key-a', 'documents/get', { folderId: 'f' }, token));
  });

  it("with a shape check, refuses a cursor of another shape (a token of an operation's former order) the same way", () => {
    const pair = (cursor: unknown): cursor is [number, string] => Array.isArray(cursor) && cursor.length === 2;
    const former = tokens.encode('key-a', 'notifications/get', { userId: 'u' }, [0, 123, 'n-1']);
    assert.deepEqual(tokens.decode('key-a', 'notifications/get', { userId: 'u' }, former), [0, 123, 'n-1']);
    invalid(() => tokens.decode('key-a', 'notifications/get', { userId: 'u' }, former, pair));
    const today = tokens.encode('key-a', 'notifications/get', { userId: 'u' }, [123, 'n-1']);
    assert.deepEqual(tokens.decode('key-a', 'notifications/get', { userId: 'u' }, today, pair), [123, 'n-1']);
  });
});
