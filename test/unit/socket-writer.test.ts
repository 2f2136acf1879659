import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { binaryFrame, SocketWriter } from '../../src/live/socket-writer.js';

describe('live socket writer', () => {
  let server: WebSocketServer;
  let port: number;
  let sent = 0;
  const accepted: WebSocket[] = [];

  before(async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
    server.on('connection', (websocket) => {
      SocketWriter.attach(websocket, () => sent++);
      accepted.push(websocket);
    });
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  /** A client, its server side (with a writer), and the binary messages it receives. */
  async function connected() {
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    const received: Buffer[] = [];
    client.on('message', (data: Buffer) => received.push(Buffer.from(data)));
    const count = accepted.length;
    await new Promise((resolve) => client.once('open', resolve));
    while (accepted.length === count) await new Promise((resolve) => setTimeout(resolve, 5));
    return { client, serverSide: accepted.at(-1)!, received };
  }

  it('delivers a shared frame of every length class, in order with plain sends, and counts each', async () => {
    const { client, serverSide, received } = await connected();
    // 7-bit, 16-bit and 64-bit payload lengths.
    const payloads = [10, 300, 70_000].map((length) => Uint8Array.from({ length }, (_, i) => (i * 7 + length) % 256));
    const before = sent;
    const writer = SocketWriter.of(serverSide)!;
    assert.equal(writer.writeFrame(binaryFrame(payloads[0]!)), true);
    serverSide.send(payloads[1]!);
    assert.equal(writer.writeFrame(binaryFrame(payloads[2]!)), true);
    while (received.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(
      received.map((data) => [...data]),
      payloads.map((data) => [...data]),
    );
    assert.equal(sent - before, 3);
    client.close();
  });

  it('refuses a frame for a socket that is not open, so the caller sends it the usual way', async () => {
    const { client, serverSide } = await connected();
    serverSide.close();
    assert.equal(SocketWriter.of(serverSide)!.writeFrame(binaryFrame(new Uint8Array([1, 2, 3]))), false);
    client.close();
  });
});
