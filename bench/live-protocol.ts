import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import * as Y from 'yjs';

/**
 * The live runs' client: raw `ws` sockets speaking the Hocuspocus protocol with pre-encoded
 * messages, so the client does little per message and the same client drives the service and
 * the bare relay. Hocuspocus rather than y-websocket: it is the protocol of the service's main
 * client (`@hocuspocus/provider`, Tiptap's collaboration extension), and y-websocket sessions
 * are served over the same Hocuspocus room with a listener of their own added.
 *
 * Every message is framed as @hocuspocus/server frames it: the document name (varString), the
 * message type (varUint), then the type's body.
 */
const MESSAGE_SYNC = 0;
const MESSAGE_AUTH = 2;
/** The server's answer to a sync step 1 (a sync message that asks for no step 1 in return). */
const MESSAGE_SYNC_REPLY = 4;
/** y-protocols' sync message types. */
const SYNC_STEP_1 = 0;
const SYNC_STEP_2 = 1;
const SYNC_UPDATE = 2;
/** @hocuspocus/common's auth message types. */
const AUTH_TOKEN = 0;
const AUTH_PERMISSION_DENIED = 1;

const frame = (room: string, write: (encoder: encoding.Encoder) => void): Uint8Array => {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, room);
  write(encoder);
  return encoding.toUint8Array(encoder);
};

/** What `HocuspocusProvider` sends first: the token. */
const authMessage = (room: string, token: string) =>
  frame(room, (encoder) => {
    encoding.writeVarUint(encoder, MESSAGE_AUTH);
    encoding.writeVarUint(encoder, AUTH_TOKEN);
    encoding.writeVarString(encoder, token);
  });

/** Then its sync step 1: the state vector of its (empty) document. */
const syncStep1 = (room: string) =>
  frame(room, (encoder) => {
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    encoding.writeVarUint(encoder, SYNC_STEP_1);
    encoding.writeVarUint8Array(encoder, Y.encodeStateVector(new Y.Doc()));
  });

/** Its answer to the server's sync step 1: what it has that the server lacks (nothing, at first). */
const syncStep2 = (room: string) =>
  frame(room, (encoder) => {
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    encoding.writeVarUint(encoder, SYNC_STEP_2);
    encoding.writeVarUint8Array(encoder, Y.encodeStateAsUpdate(new Y.Doc()));
  });

/** A Yjs update as `HocuspocusProvider` sends one. */
const updateMessage = (room: string, update: Uint8Array) =>
  frame(room, (encoder) => {
    encoding.writeVarUint(encoder, MESSAGE_SYNC);
    encoding.writeVarUint(encoder, SYNC_UPDATE);
    encoding.writeVarUint8Array(encoder, update);
  });

/** The text every editor of the runs holds (`crdt/add` with type `text`, default content key). */
export const CONTENT_KEY = 'content';

/** The text a send inserts: who sent it and its sequence number, which receivers read back. */
export const marker = (sender: number, seq: number) => `[${sender}:${seq}]`;

/**
 * A client typing in `room`: `count` update messages, each one insert of `marker(sender, seq)`
 * at the end of the client's own text, as its editor would send them (each references the
 * client's previous insert). Encoded before the run, so sending costs the client nothing more.
 */
export function typedUpdates(room: string, sender: number, count: number): Uint8Array[] {
  const doc = new Y.Doc();
  const text = doc.getText(CONTENT_KEY);
  const messages: Uint8Array[] = [];
  doc.on('update', (update: Uint8Array) => messages.push(updateMessage(room, update)));
  for (let seq = 0; seq < count; seq++) text.insert(text.length, marker(sender, seq));
  doc.destroy();
  return messages;
}

const MARKER = /\[(\d+):(\d+)\]/g;

/**
 * The markers (sender, sequence number) a received message's Yjs update inserts, if it carries
 * one (a sync update); each is a send it belongs to. The update is decoded, not matched as
 * bytes: the service sends what its own document emitted, which need not be the bytes the
 * sender sent.
 */
export function markersIn(data: Uint8Array): [number, number][] {
  const decoder = decoding.createDecoder(data);
  decoding.readVarString(decoder);
  const type = decoding.readVarUint(decoder);
  if (type !== MESSAGE_SYNC || decoding.readVarUint(decoder) !== SYNC_UPDATE) return [];
  const found: [number, number][] = [];
  for (const struct of Y.decodeUpdate(decoding.readVarUint8Array(decoder)).structs) {
    if (!(struct instanceof Y.Item) || !(struct.content instanceof Y.ContentString)) continue;
    for (const match of struct.content.str.matchAll(MARKER)) found.push([Number(match[1]), Number(match[2])]);
  }
  return found;
}

/**
 * Opens a client of `room` at `url`. With a `token`, it joins as `HocuspocusProvider` does (the
 * token, then sync step 1, answering the server's step 1) and is open once the server's sync
 * step 2 arrives; a refusal rejects with the server's reason. Without one (the bare relay) it is
 * open once the socket is. `onMessage` sees every message that arrives from then on.
 */
export function openClient(url: string, room: string, token: string | undefined, onMessage: (data: Uint8Array) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    socket.binaryType = 'nodebuffer';
    let open = false;
    const opened = () => {
      open = true;
      resolve(socket);
    };
    socket.on('error', (error) => (open ? undefined : reject(error)));
    socket.on('close', (code, reason) => (open ? undefined : reject(new Error(`${room}: closed before it was open: ${code} ${reason.toString()}`))));
    socket.on('open', () => {
      if (token === undefined) return opened();
      socket.send(authMessage(room, token));
      socket.send(syncStep1(room));
    });
    socket.on('message', (data: Buffer) => {
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      if (open) return onMessage(bytes);
      const decoder = decoding.createDecoder(bytes);
      decoding.readVarString(decoder);
      const type = decoding.readVarUint(decoder);
      const subtype = decoding.readVarUint(decoder);
      if (type === MESSAGE_AUTH && subtype === AUTH_PERMISSION_DENIED) {
        reject(new Error(`${room}: refused: ${decoding.readVarString(decoder)}`));
        socket.close();
      } else if ((type === MESSAGE_SYNC || type === MESSAGE_SYNC_REPLY) && subtype === SYNC_STEP_1) socket.send(syncStep2(room));
      else if ((type === MESSAGE_SYNC || type === MESSAGE_SYNC_REPLY) && subtype === SYNC_STEP_2) opened();
    });
  });
}

/** Closes a client and resolves once it is closed. */
export function closeClient(socket: WebSocket): Promise<void> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    socket.once('close', () => resolve());
    socket.close();
  });
}
