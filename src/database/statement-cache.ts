/**
 * Prepared statements (or their translations to the driver's placeholders) kept by text, at most
 * `capacity` of them: when one more is added, one of those used least recently goes. The texts are
 * not a fixed set: a list parameter gives one text per length (`IN ($3, $4, …)`), and the lengths
 * of two lists combine, so an unbounded map kept growing for as long as the service met new
 * lengths (a soak on PostgreSQL: 2.5 → 13.6 MB of translations in seven minutes).
 */
export class StatementCache<V> {
  /**
   * In order of insertion, oldest first (a Map iterates in insertion order), each with whether it
   * was used since it last reached the front. A hit only sets that flag: moving the entry to the
   * end on every hit (a delete and a set, each hashing the text) was most of a hit's cost.
   */
  private readonly entries = new Map<string, { value: V; used: boolean }>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry of `key`, made by `make` when there is none (and then kept). */
  get(key: string, make: () => V): V {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      entry.used = true;
      return entry.value;
    }
    const value = make();
    this.entries.set(key, { value, used: false });
    if (this.entries.size > this.capacity) this.evictOne();
    return value;
  }

  /**
   * Drops the oldest entry not used since it was last looked at here (second chance): a used one
   * met on the way goes to the end, its flag cleared, so the entry dropped is one of the least
   * recently used.
   */
  private evictOne(): void {
    for (const [key, entry] of this.entries) {
      this.entries.delete(key);
      if (!entry.used) return;
      entry.used = false;
      this.entries.set(key, entry);
    }
  }
}

/**
 * The largest number of list items (all lists together) a statement may bind and still be kept:
 * a page read binds up to a page of ids and the one that tells whether more follow (1,001), and
 * translating and preparing it again on every page cost comment pages of 100 threads 15% of
 * their throughput (0.66-0.68x of the bare baseline instead of 0.80-0.84x); longer lists come
 * with batch writes, which cost far more than their translation, and kept, each length would be
 * an entry of its own, and a large one. The caches' capacities bound what is kept either way.
 */
export const MAX_KEPT_LIST_ITEMS = 1001;
