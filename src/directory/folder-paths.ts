/**
 * Materialised folder paths: each folder stores the encoded ids from the top down to itself,
 * `a/b%2Fc/`. Encoded ids never contain `/`, and everything is ASCII, so byte-wise order puts a
 * subtree in one contiguous range right after its root's path.
 */
export const ROOT = 'root';

export function childPath(parentPath: string, id: string): string {
  return `${parentPath}${encodeURIComponent(id)}/`;
}

/** Ids from the top down to the folder itself. */
export function idsOf(path: string): string[] {
  const encoded = path.split('/').slice(0, -1);
  // Most ids need no decoding; skipping it matters when thousands of paths are read at once.
  return path.includes('%') ? encoded.map(decodeURIComponent) : encoded;
}

/** `ancestors` of rest-interface part 2: `root`, then every folder above this one. */
export function ancestorsOf(path: string): string[] {
  return [ROOT, ...idsOf(path).slice(0, -1)];
}

/** Exclusive bounds of the strict descendants of `path` (`/` is 0x2F, `0` is 0x30). */
export function descendantRange(path: string): { after: string; before: string } {
  return { after: path, before: `${path.slice(0, -1)}0` };
}

export function depthOf(path: string): number {
  return path.split('/').length - 1;
}
