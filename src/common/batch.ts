/** Per-item result of a batch write (rest-interface convention 4), keyed by the caller's id. */
export interface ItemResult {
  success: boolean;
  id: string;
  message: string;
}

export type ItemResults = Record<string, ItemResult>;

export const ok = (id: string, message: string): ItemResult => ({ success: true, id, message });
export const failed = (id: string, message: string): ItemResult => ({ success: false, id, message });
/** A success that also says what it set (upstream's access and disable-state items: `accessType`, `disabled`). */
export const okWith = <T extends object>(id: string, fields: T, message: string): ItemResult & T => ({ success: true, id, ...fields, message });

/** Items per write batch (contract 1.5). */
export const MAX_BATCH = 500;
/** IDs in the filter arrays rest-interface part 8 names (contract 1.5). */
export const MAX_FILTER_IDS = 30;

/** Splits an item into its known fields and the caller metadata kept beside them. */
export function splitMetadata(item: Record<string, unknown>, knownFields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([key]) => !knownFields.includes(key)));
}
