import type { AccessType } from '../common/access-types.js';

// Effective access types are facts of directory's folders and documents (folders get and
// documents get answer them), so they live here; access's resolution reads them from here, as
// access depends on directory and never the other way round.

/** The parts of a folder the effective access type depends on. */
export interface FolderAccessNode {
  id: string;
  /** Ids from the top down to the folder itself. */
  pathIds: string[];
  /** Own type, or null when inherited. */
  accessType: AccessType | null;
}

/**
 * Effective accessType (contract part 5): a folder's own unless it inherits, then its parent's,
 * and so on up; a top-level folder that inherits gets the key's default. `known` must hold the
 * folder's ancestors.
 */
export function effectiveFolderAccess(folder: FolderAccessNode, known: ReadonlyMap<string, FolderAccessNode>, keyDefault: AccessType): AccessType {
  for (let i = folder.pathIds.length - 1; i >= 0; i--) {
    const own = i === folder.pathIds.length - 1 ? folder.accessType : (known.get(folder.pathIds[i]!)?.accessType ?? null);
    if (own) return own;
  }
  return keyDefault;
}

/** A document's own type if set, else its folder's effective one, else the key's default. */
export function effectiveDocumentAccess(own: AccessType | null, folderEffective: AccessType | undefined, keyDefault: AccessType): AccessType {
  return own ?? folderEffective ?? keyDefault;
}
