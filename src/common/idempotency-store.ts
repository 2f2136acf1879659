import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { Clock } from './clock.js';
import { Secrets } from './secrets.js';

/**
 * How long a request holds its key while it runs. A duplicate meanwhile is refused
 * (ABORTED); past it, a key whose request never finished (its instance died, or
 * its answer could not be written) may run again. Far beyond any operation's run (a statement
 * stops at `DATABASE_STATEMENT_TIMEOUT_MS`, a webhook test send at `WEBHOOK_TIMEOUT_MS`), so an
 * operation still running is never started a second time.
 */
export const IN_FLIGHT_LEASE_MS = 5 * 60 * 1000;
/** Expired rows deleted by each request that claims a new key: more than one, so the table shrinks after a burst. */
const PRUNE_BATCH = 20;
/** Attempts to claim a key whose row disappears between the insert and the read (released or pruned meanwhile). */
const CLAIM_ATTEMPTS = 3;

/** Which remembered request a key names: the caller's scope, the operation's path and the key. */
export interface IdempotencyKeyRef {
  /** The caller's credential scope (`apiKey:<id>`, `workspace:<id>`). */
  readonly scope: string;
  readonly path: string;
  readonly key: string;
}

/** An answer as remembered: its HTTP status and its body, as sent (JSON text). */
export interface RememberedAnswer {
  readonly status: number;
  readonly body: string;
}

/** What claiming a key found. */
export type IdempotencyClaim =
  /** The key is this request's to run: complete (or release) it with `claim`. */
  | { readonly kind: 'claimed'; readonly claim: string }
  /** The same request was answered before: its answer. */
  | { readonly kind: 'replay'; readonly answer: RememberedAnswer }
  /** The key was used with another request body. */
  | { readonly kind: 'mismatch' }
  /** The same request is still being answered. */
  | { readonly kind: 'in-flight' };

interface Row {
  request_hash: string;
  claim: string;
  status_code: number | string | null;
  answer: string | null;
  expires_at: number | string;
}

/**
 * The owner of `idempotent_request`: the answers remembered for `Idempotency-Key`. A request
 * claims its key by inserting an in-flight row under the primary key (scope, path, key), in a
 * unit of work of its own committed before the operation runs: of concurrent duplicates exactly
 * one inserts (PostgreSQL makes the others wait for its commit, then finds the row; SQLite runs
 * units in turn), so an operation never runs twice for a key. Its answer then completes the row,
 * encrypted (answers may hold credentials: tokens of a new API key, a user token), or a release
 * deletes it so a retry runs again. Plain SQL: no entity, and every statement is one of these.
 *
 * Expired rows (answers past `IDEMPOTENCY_RETENTION_HOURS`, in-flight rows past their lease) are
 * deleted a batch at a time by the requests that claim new keys, as console sessions are by new
 * sign-ins: no timer, so every instance keeps the table small whether or not it delivers.
 */
@Injectable()
export class IdempotencyStore {
  private readonly retentionMs: number;

  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
    private readonly secrets: Secrets,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.retentionMs = config.idempotencyRetentionHours * 60 * 60 * 1000;
  }

  /**
   * Claims `ref` for a request whose body hashes to `requestHash`, or says what holds it. A row
   * past its `expires_at` (an answer no longer kept, a lease run out) is taken over as new.
   */
  async claim(ref: IdempotencyKeyRef, requestHash: string): Promise<IdempotencyClaim> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const found = await this.transactions.run((manager) => this.claimOnce(manager, ref, requestHash));
      if (found) return found;
    }
    // Released and claimed again by others between each of our statements: busy indeed.
    return { kind: 'in-flight' };
  }

  /** Keeps the answer of the request holding `claim`, for `IDEMPOTENCY_RETENTION_HOURS` from now. */
  async complete(ref: IdempotencyKeyRef, claim: string, answer: RememberedAnswer): Promise<void> {
    const now = this.clock.now();
    await this.transactions.run((manager) =>
      this.sql.run(
        manager,
        `UPDATE idempotent_request SET status_code = :status, answer = :answer, expires_at = :expiresAt
          WHERE scope = :scope AND path = :path AND idempotency_key = :key AND claim = :claim`,
        { ...ref, claim, status: answer.status, answer: this.secrets.encrypt(answer.body), expiresAt: now + this.retentionMs },
      ),
    );
  }

  /** Forgets the claim of a request whose answer is not kept (a fault, a rate limit): a retry runs anew. */
  async release(ref: IdempotencyKeyRef, claim: string): Promise<void> {
    await this.transactions.run((manager) =>
      this.sql.run(manager, 'DELETE FROM idempotent_request WHERE scope = :scope AND path = :path AND idempotency_key = :key AND claim = :claim', {
        ...ref,
        claim,
      }),
    );
  }

  /** One try at `claim`: undefined when the row went away between the insert and the read. */
  private async claimOnce(manager: EntityManager, ref: IdempotencyKeyRef, requestHash: string): Promise<IdempotencyClaim | undefined> {
    const now = this.clock.now();
    const claim = randomBytes(16).toString('base64url');
    const held = { ...ref, requestHash, claim, createdAt: now, expiresAt: now + IN_FLIGHT_LEASE_MS };
    const inserted = await this.sql.run<{ claim: string }>(
      manager,
      `INSERT INTO idempotent_request (scope, path, idempotency_key, request_hash, claim, created_at, expires_at)
        VALUES (:scope, :path, :key, :requestHash, :claim, :createdAt, :expiresAt)
        ON CONFLICT (scope, path, idempotency_key) DO NOTHING RETURNING claim`,
      held,
    );
    if (inserted.length) {
      await this.prune(manager, now);
      return { kind: 'claimed', claim };
    }
    // Locked, so a takeover of an expired row is this request's alone.
    const [row] = await this.sql.lockRows<Row>(
      manager,
      `SELECT request_hash, claim, status_code, answer, expires_at FROM idempotent_request
        WHERE scope = :scope AND path = :path AND idempotency_key = :key`,
      { ...ref },
    );
    if (!row) return undefined;
    if (Number(row.expires_at) <= now) {
      await this.sql.run(
        manager,
        `UPDATE idempotent_request SET request_hash = :requestHash, claim = :claim, status_code = NULL, answer = NULL, created_at = :createdAt, expires_at = :expiresAt
          WHERE scope = :scope AND path = :path AND idempotency_key = :key`,
        held,
      );
      return { kind: 'claimed', claim };
    }
    if (row.request_hash !== requestHash) return { kind: 'mismatch' };
    if (row.status_code === null || row.answer === null) return { kind: 'in-flight' };
    return { kind: 'replay', answer: { status: Number(row.status_code), body: this.secrets.decrypt(row.answer) } };
  }

  /** Deletes a batch of expired rows, passing by any another request holds (PostgreSQL `SKIP LOCKED`). */
  private async prune(manager: EntityManager, now: number): Promise<void> {
    await this.sql.run(
      manager,
      `DELETE FROM idempotent_request WHERE (scope, path, idempotency_key) IN (${this.sql.claimable(
        'SELECT scope, path, idempotency_key FROM idempotent_request WHERE expires_at <= :now ORDER BY expires_at LIMIT :limit',
      )})`,
      { now, limit: PRUNE_BATCH },
    );
  }
}
