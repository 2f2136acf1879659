import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './parsers.js';

export const MASTER_KEY_FILE = 'master.key';

/**
 * The key that encrypts secrets at rest. An operator supplies `MASTER_KEY`; the embedded
 * default generates one into the data folder on first start so `npm start` needs no setup.
 * A server database is shared by instances that must all hold the same key, so there it must
 * be configured explicitly.
 */
export function resolveMasterKey(masterKeyBase64: string | undefined, dataDir: string, usesServerDatabase: boolean): { key: Buffer; generatedInto?: string } {
  if (masterKeyBase64 !== undefined) return { key: decodeKey(masterKeyBase64) };
  if (usesServerDatabase) {
    throw new ConfigError('MASTER_KEY', 'is required when DATABASE_URL is set (32 bytes, base64; `openssl rand -base64 32`)');
  }
  const file = join(dataDir, MASTER_KEY_FILE);
  if (existsSync(file)) return { key: decodeKey(readFileSync(file, 'utf8').trim(), file) };
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { key, generatedInto: file };
}

function decodeKey(base64: string, source = 'MASTER_KEY'): Buffer {
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(base64) ? Buffer.from(base64, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) {
    throw new ConfigError(source, 'must be 32 bytes encoded as base64');
  }
  return key;
}
