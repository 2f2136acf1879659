import { parseXml } from './xml.js';

/*
 * What the service knows of stored editors without Yjs: their content types and data checks.
 * The Yjs side (`yjs-content.ts`) is imported on first use, not at start-up (see
 * `src/common/optional-modules.ts`).
 */

/** Content types of contract part 7 and the Yjs shared type each is kept in. */
export const CRDT_TYPES = ['text', 'map', 'array', 'xml'] as const;
export type CrdtType = (typeof CRDT_TYPES)[number];

/** The JSON view callers send and read: a string (text, xml), an object (map) or an array. */
export type CrdtData = string | Record<string, unknown> | unknown[];

/** Why data cannot be stored as the given type (contract part 7's messages). */
export function dataProblem(type: CrdtType, data: unknown): string | undefined {
  switch (type) {
    case 'text':
      return typeof data === 'string' ? undefined : 'Data must be a string for type text.';
    case 'map':
      return typeof data === 'object' && data !== null && !Array.isArray(data) ? undefined : 'Data must be an object for type map.';
    case 'array':
      return Array.isArray(data) ? undefined : 'Data must be an array for type array.';
    case 'xml':
      if (typeof data !== 'string') return 'Data must be a string for type xml.';
      try {
        parseXml(data);
        return undefined;
      } catch (error) {
        return `Data is not well-formed XML: ${(error as Error).message}`;
      }
  }
}

/** A thrown update that Yjs cannot read. */
export class BadUpdateError extends Error {}

/** A random 32-bit Yjs client id, as Yjs itself makes them. */
export function newClientId(): number {
  return Math.floor(Math.random() * 0x1_0000_0000);
}
