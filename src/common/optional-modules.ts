import { createRequire } from 'node:module';
import type * as IoRedis from 'ioredis';
import type Nodemailer from 'nodemailer';

/**
 * Packages only some configurations use, loaded on first use instead of at start-up: each costs
 * megabytes of memory a service without it would hold for nothing (the idle-memory bound of
 * `npm run bench`). Loaded synchronously, so callers stay as they were; `import type` elsewhere
 * keeps their types. Only packages published as CommonJS alone belong here: `require` of one
 * that also ships an ES build would load a second copy beside the one `import` loads, so those
 * are `await import`ed where used, through `onFirstUse` (the shared-editing stack: Yjs in
 * `crdt/crdt.service.ts`, Hocuspocus and the rest in `live/live-editing.ts`).
 */
const load = createRequire(import.meta.url);

/** An ES module (`() => import(...)`) imported on the first call, the same promise after. */
export function onFirstUse<T>(importer: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= importer());
}

/** `ioredis`, for `REDIS_URL` (shared rate limits, live rooms across instances). */
export const ioredis = (): typeof IoRedis => load('ioredis') as typeof IoRedis;

/** `nodemailer`, for `SMTP_URL`. */
export const nodemailer = (): typeof Nodemailer => load('nodemailer') as typeof Nodemailer;

/** `mailchecker`'s list of throwaway mail domains (about 55,000; ~4 MB of heap), for workspace sign-ups. */
export const disposableDomains = (): Set<string> => (load('mailchecker') as { blacklist(): Set<string> }).blacklist();
