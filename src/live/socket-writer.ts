import type { Socket } from 'node:net';
import * as ws from 'ws';
import type { WebSocket } from 'ws';

/** `ws`'s frame builder, which its types do not declare. */
const { Sender } = ws as unknown as {
  Sender: { frame(data: Buffer, options: { fin: boolean; opcode: number; mask: boolean; readOnly: boolean; rsv1: boolean }): Buffer[] };
};

/** What `ws` keeps of a socket that this module reads: its TCP socket, and its sender's queue. */
interface WsInternals {
  _socket: Socket;
  _sender: { _state: number; _queue: unknown[] };
}

/** `ws`'s sender state with nothing being compressed or read (its `DEFAULT`): frames go straight to the socket. */
const SENDER_IDLE = 0;

/**
 * One unmasked binary frame of `data` (header and payload in one buffer). A server's frames
 * are not masked, so the same bytes serve every client a room's update goes to: built once per
 * update instead of once per recipient.
 */
export function binaryFrame(data: Uint8Array): Buffer {
  const payload = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.concat(Sender.frame(payload, { fin: true, opcode: 2, mask: false, readOnly: true, rsv1: false }));
}

const writers = new WeakMap<WebSocket, SocketWriter>();
/** The writers whose sockets are corked until the event loop's current turn ends. */
const corked = new Set<SocketWriter>();
let flushScheduled = false;

function flush(): void {
  flushScheduled = false;
  for (const writer of corked) writer.uncork();
  corked.clear();
}

/**
 * How the live endpoint writes to a client's socket, whichever protocol it speaks. Its frames
 * are batched: the socket stays corked until the event loop has handled every message that
 * arrived with the one being answered, so what a busy room sends one client in that time leaves
 * in one `writev` instead of one system call per frame (the cost that dominated the fan-out's
 * profile); a frame waits at most for the loop's current turn. `sent` is called once per
 * message written (the live metrics count them).
 */
export class SocketWriter {
  private corked = false;
  private readonly socket: Socket;

  private constructor(
    private readonly websocket: WebSocket,
    private readonly sent: () => void,
  ) {
    this.socket = (websocket as unknown as WsInternals)._socket;
    const send = websocket.send.bind(websocket) as (...args: unknown[]) => void;
    websocket.send = ((...args: unknown[]) => {
      this.cork();
      send(...args);
    }) as WebSocket['send'];
  }

  /** Makes `websocket`'s sends go through a writer (see the class). */
  static attach(websocket: WebSocket, sent: () => void): void {
    writers.set(websocket, new SocketWriter(websocket, sent));
  }

  /** The writer of `websocket`, when `attach` made one. */
  static of(websocket: WebSocket): SocketWriter | undefined {
    return writers.get(websocket);
  }

  /**
   * Writes a frame `binaryFrame` built, when the socket is open and `ws` holds nothing queued
   * ahead of it (so frames stay in order); otherwise answers false and writes nothing.
   */
  writeFrame(frame: Buffer): boolean {
    const sender = (this.websocket as unknown as WsInternals)._sender;
    if (this.websocket.readyState !== this.websocket.OPEN || sender._state !== SENDER_IDLE || sender._queue.length) return false;
    this.cork();
    this.socket.write(frame);
    return true;
  }

  uncork(): void {
    this.corked = false;
    this.socket.uncork();
  }

  private cork(): void {
    this.sent();
    if (this.corked) return;
    this.corked = true;
    this.socket.cork();
    corked.add(this);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  }
}
