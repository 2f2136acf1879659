import { randomBytes, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Uniform random base62 string (no modulo bias: `randomInt` rejects out-of-range draws). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** Formats of contract 1.3; opaque to clients. */
export const newWorkspaceId = () => randomBase62(20);
export const newWorkspaceAuthToken = () => randomBytes(16).toString('hex');
export const newApiKey = () => randomBase62(24);
export const newApiKeyAuthToken = () => randomBytes(36).toString('base64url');

let lastTime = 0;
let lastRandom: Uint8Array = new Uint8Array(10);

/**
 * ULID (time-sortable, 26 chars) with an optional type prefix, monotonic within one process so
 * IDs made in the same millisecond still sort in creation order.
 */
export function newSortableId(prefix = ''): string {
  const now = Date.now();
  if (now <= lastTime) {
    lastRandom = incrementBytes(lastRandom);
  } else {
    lastTime = now;
    lastRandom = new Uint8Array(randomBytes(10));
  }
  let time = '';
  let t = lastTime;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return `${prefix}${time}${encodeRandom(lastRandom)}`;
}

function incrementBytes(bytes: Uint8Array): Uint8Array {
  const next = new Uint8Array(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] === 255) {
      next[i] = 0;
    } else {
      next[i]! += 1;
      break;
    }
  }
  return next;
}

function encodeRandom(bytes: Uint8Array): string {
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < 16; i++) {
    out = CROCKFORD[Number(bits & 31n)] + out;
    bits >>= 5n;
  }
  return out;
}
