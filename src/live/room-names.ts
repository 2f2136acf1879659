/** A live room: one stored editor of one API key (`crdt/add` made it). */
export interface Room {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
  editorId: string;
}

/**
 * A room's name, as clients send it: the API key, then the organization, document and editor
 * ids, each percent-encoded (`encodeURIComponent`) and joined by `/`. Ids of any characters
 * round-trip, and two keys' editors of the same ids are two rooms.
 */
export function roomName(room: Room): string {
  return [room.apiKeyId, room.organizationId, room.documentId, room.editorId].map(encodeURIComponent).join('/');
}

/** What the names of a document's rooms (its editors') start with. */
export function documentPrefix(apiKeyId: string, place: { organizationId: string; documentId: string }): string {
  return roomName({ apiKeyId, ...place, editorId: '' });
}

/** The room a name stands for; undefined for a name `roomName` does not write. */
export function parseRoom(name: string): Room | undefined {
  const parts = name.split('/');
  if (parts.length !== 4) return undefined;
  try {
    const [apiKeyId, organizationId, documentId, editorId] = parts.map(decodeURIComponent) as [string, string, string, string];
    const room = { apiKeyId, organizationId, documentId, editorId };
    return parts.every(Boolean) && roomName(room) === name ? room : undefined;
  } catch {
    return undefined;
  }
}
