import assert from 'node:assert/strict';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import type * as Y from 'yjs';
import type { PresentUser } from '../../src/live/dto/presence.dto.js';

/** Polls `check` until it holds (or fails the test after `timeoutMs`). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A Hocuspocus client (as Tiptap's collaboration extension runs one), with what happened to it. */
export interface LiveClient {
  provider: HocuspocusProvider;
  text: Y.Text;
  synced: Promise<void>;
  failed: Promise<string>;
  /** Stateless messages received (parsed JSON). */
  stateless: unknown[];
  /** Reasons the server gave for closing the room's connection. */
  closes: string[];
  close(): void;
}

/** Connects a Hocuspocus client to a room of the service on `port`, as `token`'s user; it edits the `content` text. */
export function connectLive(port: number, name: string, token: string): LiveClient {
  const socket = new HocuspocusProviderWebsocket({ url: `ws://127.0.0.1:${port}/v2/live`, WebSocketPolyfill: WebSocket });
  let failed!: (reason: string) => void;
  let synced!: () => void;
  const client: LiveClient = {
    synced: new Promise((resolve) => (synced = resolve)),
    failed: new Promise((resolve) => (failed = resolve)),
    provider: new HocuspocusProvider({
      websocketProvider: socket,
      name,
      token,
      onSynced: () => synced(),
      onAuthenticationFailed: ({ reason }) => failed(reason),
      onStateless: ({ payload }) => client.stateless.push(JSON.parse(payload)),
      onClose: ({ event }) => client.closes.push(`${event.code} ${String(event.reason)}`.trim()),
    }),
    stateless: [],
    closes: [],
    text: undefined as unknown as Y.Text,
    close: () => {
      client.provider.destroy();
      socket.destroy();
    },
  };
  client.text = client.provider.document.getText('content');
  client.provider.attach();
  return client;
}

/** The `livestate/broadcast` events a client received (presence messages aside). */
export const liveStates = (client: LiveClient) => client.stateless.filter((message) => (message as { type: string }).type === 'livestate');

/** The users of the last presence message a client received. */
export const lastPresence = (client: LiveClient) =>
  (client.stateless.filter((message) => (message as { type: string }).type === 'presence').at(-1) as { users: PresentUser[] } | undefined)?.users;
