import { randomBytes, randomFillSync, randomInt } from 'node:crypto';

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
 * Random bytes drawn 4 KiB at a time: a draw from the system's generator costs about as much for
 * 4 KiB as for the 10 bytes an id needs, and ids are made on every write.
 */
const RANDOM_POOL = new Uint8Array(4096);
let randomPoolUsed = RANDOM_POOL.length;

function freshRandom(length: number): Uint8Array {
  if (randomPoolUsed + length > RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    randomPoolUsed = 0;
  }
  randomPoolUsed += length;
  return RANDOM_POOL.slice(randomPoolUsed - length, randomPoolUsed);
}

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
    lastRandom = freshRandom(10);
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

/** 80 bits as 16 Crockford characters, most significant first: two 40-bit halves, each exact in a double. */
function encodeRandom(bytes: Uint8Array): string {
  let out = '';
  for (const half of [0, 5]) {
    let bits = 0;
    for (let i = half; i < half + 5; i++) bits = bits * 256 + bytes[i]!;
    let chars = '';
    for (let i = 0; i < 8; i++) {
      chars = CROCKFORD[bits % 32] + chars;
      bits = Math.floor(bits / 32);
    }
    out += chars;
  }
  return out;
}
