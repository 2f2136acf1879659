/**
 * `items` grouped by `key`, each group in the items' order, holding `value(item)` (the item
 * itself by default). Groups are appended to in place: one pass, no list copied per item.
 */
export function groupBy<T, K, V = T>(items: Iterable<T>, key: (item: T) => K, value: (item: T) => V = (item) => item as unknown as V): Map<K, V[]> {
  const groups = new Map<K, V[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(value(item));
    else groups.set(key(item), [value(item)]);
  }
  return groups;
}

/** Ids per statement where a list of them may be long (`IN (...)` lists stay well under every engine's parameter limit). */
export const ID_CHUNK = 500;

/** `items` in consecutive slices of at most `size`. */
export function* chunksOf<T>(items: readonly T[], size = ID_CHUNK): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}
