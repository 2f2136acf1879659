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
