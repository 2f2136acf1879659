import type { EntityManager } from 'typeorm';
import type { Secrets } from './secrets.js';

/** Rows an owner reads and rewrites at a time during a master key rotation. */
export const REKEY_BATCH = 200;

/** Where a stored secret sits: its table, its column (and the field inside a JSON column), its row. */
export interface SecretPlace {
  table: string;
  column: string;
  row: string;
}

/** What a rotation did (or, checking, would do) to one column or table. */
export interface RekeyCount {
  /** `table.column` (a JSON column's field after it, in parentheses). */
  place: string;
  kind: 'reencrypted' | 'rehashed' | 'ended';
  count: number;
  /** For `ended`: what ended, in words (`console sessions`). */
  what?: string;
}

/** Values the key being checked does not open, by `table.column`: how many, and the first rows. */
export interface Undecryptable {
  place: string;
  count: number;
  rows: string[];
}

export type RekeyProgress = (table: string, done: number, total: number) => void;

/**
 * One pass of a master key rotation over the owners' secrets, inside the rotation's unit of
 * work (`manager`). Each owner of a table holding secrets has a method taking it
 * (`rekeySecrets`): it reads its rows in batches, opens each stored value with the current key
 * (`open`), and, when `writing`, stores it sealed under the new key (`seal`), its keyed lookup
 * hash recomputed (`hash`); values no one can recover (hashes of tokens only clients hold) are
 * deleted and counted (`ended`).
 *
 * A checking pass (`writing` false) writes nothing: it notes every value the current key does
 * not open, so the rotation can refuse naming them all. A writing pass throws at the first such
 * value (after a clean check in the same unit of work there is none), rolling everything back.
 */
export class SecretsRekey {
  private readonly counts = new Map<string, RekeyCount>();
  private readonly failures = new Map<string, Undecryptable>();

  constructor(
    readonly manager: EntityManager,
    private readonly from: Secrets,
    private readonly to: Secrets,
    readonly writing: boolean,
    private readonly onProgress: RekeyProgress = () => undefined,
  ) {}

  /** The plaintext of a stored value under the current key. Checking, a value that does not open is noted and answered as ''. */
  open(stored: string, place: SecretPlace): string {
    let plaintext: string | undefined;
    try {
      plaintext = this.from.decrypt(stored);
    } catch {
      const name = placeName(place);
      if (this.writing) throw new Error(`${name} of row ${place.row} does not decrypt with the current master key.`);
      const failure = this.failures.get(name) ?? this.failures.set(name, { place: name, count: 0, rows: [] }).get(name)!;
      failure.count += 1;
      if (failure.rows.length < 3) failure.rows.push(place.row);
      return '';
    }
    this.add(placeName(place), 'reencrypted', 1);
    return plaintext;
  }

  /** A plaintext sealed under the new key. */
  seal(plaintext: string): string {
    return this.to.encrypt(plaintext);
  }

  /** A stored value opened with the current key and sealed under the new one; '' (unset) stays ''. */
  reseal(stored: string, place: SecretPlace): string {
    return stored === '' ? '' : this.seal(this.open(stored, place));
  }

  /** The keyed lookup hash of a plaintext under the new key, counted for `table.column`. */
  hash(plaintext: string, place: Omit<SecretPlace, 'row'>): string {
    this.add(placeName(place), 'rehashed', 1);
    return this.to.lookupHash(plaintext);
  }

  /** Rows deleted (or, checking, to be deleted) because what they hash cannot be recovered. */
  ended(table: string, count: number, what: string): void {
    this.add(table, 'ended', count, what);
  }

  progress(table: string, done: number, total: number): void {
    this.onProgress(table, done, total);
  }

  /**
   * Runs `handle` over a table's rows in key order, `REKEY_BATCH` at a time, reporting progress:
   * `read(after)` answers the next batch after the key `after` (null: from the start).
   */
  async inBatches<R extends { id: string }>(table: string, total: number, read: (after: string | null) => Promise<R[]>, handle: (rows: R[]) => Promise<void>) {
    let after: string | null = null;
    let done = 0;
    for (;;) {
      const rows = await read(after);
      if (!rows.length) break;
      await handle(rows);
      done += rows.length;
      after = rows[rows.length - 1]!.id;
      this.progress(table, done, Math.max(total, done));
      if (rows.length < REKEY_BATCH) break;
    }
  }

  get report(): RekeyCount[] {
    return [...this.counts.values()];
  }

  get undecryptable(): Undecryptable[] {
    return [...this.failures.values()];
  }

  private add(place: string, kind: RekeyCount['kind'], count: number, what?: string): void {
    const key = `${kind} ${place}`;
    const entry = this.counts.get(key) ?? this.counts.set(key, { place, kind, count: 0, ...(what ? { what } : {}) }).get(key)!;
    entry.count += count;
  }
}

function placeName(place: Omit<SecretPlace, 'row'>): string {
  const [column, ...field] = place.column.split('.');
  return field.length ? `${place.table}.${column} (${field.join('.')})` : `${place.table}.${column}`;
}
