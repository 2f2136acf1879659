import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import type WebSocket from 'ws';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as syncProtocol from 'y-protocols/sync';
import type { Document } from '@hocuspocus/server';

/** y-websocket's message types: the first varUint of every message. */
const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;
/** y-protocols' sync message types (the second varUint of a sync message). */
const SYNC_STEP_2 = 1;
const SYNC_UPDATE = 2;

/** One y-websocket client in a room: what its updates and awareness carry as origin, and what the service checks about it. */
export interface YWebsocketSession {
  /** Hocuspocus reads `context` from an update's origin (who wrote, for `lastUpdatedBy`). */
  readonly context: unknown;
  readOnly: boolean;
  close(code: number, reason: string): void;
}

/**
 * Serves the y-websocket protocol (y-websocket's `WebsocketProvider`: sync steps and updates,
 * awareness; the room in the URL) on a socket, over a room's Hocuspocus document: its updates
 * reach the Hocuspocus clients (Hocuspocus sends every document update to them, and stores it
 * on its debounce), and theirs reach this client. `check` sees every update before it is
 * applied and throws to refuse it (size, rate); a read-only session answers sync requests but
 * applies nothing. The messages are y-protocols', so only the framing is written here.
 */
export function serveYWebsocket(
  websocket: WebSocket,
  document: Document,
  session: { context: unknown; readOnly: boolean; check: (update: Uint8Array | undefined) => void; closed: () => void },
): YWebsocketSession {
  const awareness = document.awareness;
  const clients = new Set<number>();
  const handle: YWebsocketSession = {
    context: session.context,
    readOnly: session.readOnly,
    close: (code, reason) => websocket.close(code, reason),
  };
  const send = (encoder: encoding.Encoder) => {
    if (websocket.readyState === websocket.OPEN) websocket.send(encoding.toUint8Array(encoder));
  };
  const onUpdate = (update: Uint8Array, origin: unknown) => {
    if (origin === handle) return;
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    syncProtocol.writeUpdate(encoder, update);
    send(encoder);
  };
  const onAwareness = ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
    if (origin === handle) for (const id of [...added, ...updated]) clients.add(id);
    const changed = [...added, ...updated, ...removed];
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
    encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(awareness, changed));
    send(encoder);
  };
  document.on('update', onUpdate);
  awareness.on('update', onAwareness);

  websocket.on('message', (data: Buffer) => {
    try {
      const decoder = decoding.createDecoder(new Uint8Array(data));
      const type = decoding.readVarUint(decoder);
      if (type === MESSAGE_AWARENESS) return awarenessProtocol.applyAwarenessUpdate(awareness, decoding.readVarUint8Array(decoder), handle);
      if (type !== MESSAGE_SYNC) return;
      const syncType = decoding.peekVarUint(decoder);
      if (syncType === SYNC_STEP_2 || syncType === SYNC_UPDATE) {
        if (handle.readOnly) return;
        const probe = decoding.clone(decoder);
        decoding.readVarUint(probe);
        session.check(decoding.readVarUint8Array(probe));
      }
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, MESSAGE_SYNC);
      syncProtocol.readSyncMessage(decoder, encoder, document, handle);
      if (encoding.length(encoder) > 1) send(encoder);
    } catch (error) {
      const refusal = error as { code?: number; reason?: string; message?: string };
      websocket.close(refusal.code ?? 1011, (refusal.reason ?? refusal.message ?? 'Bad message').slice(0, 120));
    }
  });
  websocket.on('close', () => {
    document.off('update', onUpdate);
    awareness.off('update', onAwareness);
    awarenessProtocol.removeAwarenessStates(awareness, [...clients], null);
    session.closed();
  });

  // The server's half of the first sync, and who is here.
  const step1 = encoding.createEncoder();
  encoding.writeVarUint(step1, MESSAGE_SYNC);
  syncProtocol.writeSyncStep1(step1, document);
  send(step1);
  const present = [...awareness.getStates().keys()];
  if (present.length) {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
    encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(awareness, present));
    send(encoder);
  }
  return handle;
}
