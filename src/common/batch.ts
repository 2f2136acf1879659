import { checkId, checkPlainObject } from './validation.js';

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

type Check = (value: unknown) => string | undefined;

/**
 * Items of a batch that may carry caller metadata: a plain object each, with a valid id under
 * `idField` unique within the batch, known fields checked by `known`, and any other key kept as
 * metadata (its value any JSON).
 */
export function checkItems(idField: string, known: Record<string, Check>, max = MAX_BATCH): Check {
  return (value) => {
    if (!Array.isArray(value)) return 'must be an array';
    if (value.length === 0) return 'must contain at least 1 item(s)';
    if (value.length > max) return `must contain at most ${max} items`;
    const seen = new Map<string, number>();
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const shape = checkPlainObject(item);
      if (shape) return `[${i}] ${shape}`;
      const record = item as Record<string, unknown>;
      const idProblem = checkId(record[idField]);
      if (idProblem) return `[${i}].${idField} ${idProblem}`;
      const id = record[idField] as string;
      const first = seen.get(id);
      if (first !== undefined) return `[${i}].${idField} repeats [${first}].${idField} (${JSON.stringify(id)})`;
      seen.set(id, i);
      for (const [field, check] of Object.entries(known)) {
        if (record[field] === undefined) continue;
        const problem = check(record[field]);
        if (problem) return `[${i}].${field} ${problem}`;
      }
    }
    return undefined;
  };
}

/** Splits an item into its known fields and the caller metadata kept beside them. */
export function splitMetadata(item: Record<string, unknown>, knownFields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([key]) => !knownFields.includes(key)));
}
