/**
 * Prepared statements (or their translations to the driver's placeholders) kept by text, at most
 * `capacity` of them: when one more is added, the one used least recently goes. The texts are
 * not a fixed set: a list parameter gives one text per length (`IN ($3, $4, …)`), and the lengths
 * of two lists combine, so an unbounded map kept growing for as long as the service met new
 * lengths (a soak on PostgreSQL: 2.5 → 13.6 MB of translations in seven minutes).
 */
export class StatementCache<V> {
  /** In order of use, least recent first (a Map iterates in insertion order). */
  private readonly entries = new Map<string, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry of `key`, made by `make` when there is none (and then kept). */
  get(key: string, make: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) value = make();
    // Moved to the end: the most recently used.
    else this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return value;
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
