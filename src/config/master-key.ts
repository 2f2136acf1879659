import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './parsers.js';

export const MASTER_KEY_FILE = 'master.key';
/** A rotation's new key, written before its transaction commits and renamed over `master.key` after. */
export const STAGED_MASTER_KEY_FILE = 'master.key.next';

/**
 * The key that encrypts secrets at rest. An operator supplies `MASTER_KEY`; the embedded
 * default generates one into the data folder on first start so `npm start` needs no setup.
 * A server database is shared by instances that must all hold the same key, so there it must
 * be configured explicitly.
 */
export function resolveMasterKey(
  masterKeyBase64: string | undefined,
  dataDir: string,
  usesServerDatabase: boolean,
): { key: Buffer; file?: string; generatedInto?: string } {
  if (masterKeyBase64 !== undefined) return { key: decodeKey(masterKeyBase64) };
  if (usesServerDatabase) {
    throw new ConfigError('MASTER_KEY', 'is required when DATABASE_URL is set (32 bytes, base64; `openssl rand -base64 32`)');
  }
  const file = join(dataDir, MASTER_KEY_FILE);
  if (existsSync(file)) return { key: decodeKey(readFileSync(file, 'utf8').trim(), file), file };
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { key, file, generatedInto: file };
}

/**
 * Master key rotation with the embedded default, step one: the new key written beside the key
 * file (`master.key.next`, mode 0600, on disk before this returns), before the database commits,
 * so a crash after the commit cannot lose it. Refuses when one is there already.
 */
export function stageMasterKey(dataDir: string, key: Buffer): string {
  const staged = join(dataDir, STAGED_MASTER_KEY_FILE);
  const fd = openSync(staged, 'wx', 0o600);
  try {
    writeSync(fd, `${key.toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(staged, 0o600);
  return staged;
}

/** The staged key of a rotation that did not finish, if one is there (its file and key). */
export function stagedMasterKey(dataDir: string): { file: string; key: Buffer } | undefined {
  const staged = join(dataDir, STAGED_MASTER_KEY_FILE);
  return existsSync(staged) ? { file: staged, key: decodeKey(readFileSync(staged, 'utf8').trim(), staged) } : undefined;
}

/** Step two, once the database committed: the staged key replaces the key file in one rename (atomic), and the rename is made durable. */
export function installStagedMasterKey(dataDir: string): string {
  const file = join(dataDir, MASTER_KEY_FILE);
  renameSync(join(dataDir, STAGED_MASTER_KEY_FILE), file);
  const folder = openSync(dataDir, 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
  return file;
}

/** A rotation that did not commit: its staged key goes. */
export function discardStagedMasterKey(dataDir: string): void {
  rmSync(join(dataDir, STAGED_MASTER_KEY_FILE), { force: true });
}

export function decodeKey(base64: string, source = 'MASTER_KEY'): Buffer {
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(base64) ? Buffer.from(base64, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) {
    throw new ConfigError(source, 'must be 32 bytes encoded as base64');
  }
  return key;
}
