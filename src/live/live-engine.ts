import { Document, OutgoingMessage } from '@hocuspocus/server';
import * as decoding from 'lib0/decoding';
import { binaryFrame, SocketWriter } from './socket-writer.js';

/*
 * The shared-editing stack live editing runs on: Hocuspocus, ws, Yjs, y-protocols and lib0,
 * about 2 MB of heap. `LiveEditing` imports this module when its first client connects, not at
 * start-up: an instance nobody edits on never loads it (the idle-memory bound of `npm run bench`).
 */
export { Hocuspocus } from '@hocuspocus/server';
export { WebSocketServer } from 'ws';
export { applyUpdate, encodeStateAsUpdate } from 'yjs';
export { EditorContent } from '../crdt/yjs-content.js';
export { SocketWriter } from './socket-writer.js';
export { serveYWebsocket } from './y-websocket-session.js';

/**
 * Hocuspocus 3.4 (`Document.handleUpdate`) encodes an update's message again for each
 * connection of the room and sends it back to the connection it came from as well: in a busy
 * room, a copy and a frame per client per update for nothing (the sender has the update, and
 * its provider learns it was applied from the sync-status reply). This encodes it once, frames
 * it once (`binaryFrame`), and writes that frame to the others; the hooks see the update as
 * before.
 */
type UpdateHandler = (this: Document, update: Uint8Array, origin: unknown) => Document;
(Document.prototype as unknown as { handleUpdate: UpdateHandler }).handleUpdate = function (update, origin) {
  (this as unknown as { callbacks: { onUpdate(document: Document, origin: unknown, update: Uint8Array): void } }).callbacks.onUpdate(this, origin, update);
  const message = new OutgoingMessage(this.name).createSyncMessage().writeUpdate(update).toUint8Array();
  let frame: Buffer | undefined;
  for (const connection of this.getConnections()) {
    if (connection === origin) continue;
    const writer = SocketWriter.of(connection.webSocket);
    if (writer?.writeFrame((frame ??= binaryFrame(message)))) continue;
    connection.send(message);
  }
  return this;
};

/**
 * The Yjs update a Hocuspocus message carries, if it is a sync step 2 or an update (document
 * name, message type 0 = sync, sync type 1 or 2, the update); undefined for any other message.
 */
export function yjsUpdateIn(message: Uint8Array): Uint8Array | undefined {
  try {
    const decoder = decoding.createDecoder(message);
    decoding.readVarString(decoder);
    if (decoding.readVarUint(decoder) !== 0) return undefined;
    const syncType = decoding.readVarUint(decoder);
    return syncType === 1 || syncType === 2 ? decoding.readVarUint8Array(decoder) : undefined;
  } catch {
    return undefined;
  }
}
