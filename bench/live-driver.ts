import { parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type WebSocket from 'ws';
import { closeClient, markersIn, openClient, typedUpdates } from './live-protocol.js';

/**
 * A worker thread of the live fan-out run's client (`live.ts`): it opens its share of the
 * clients, whole rooms of them (so every receipt's send time is in the same thread), and on
 * `run` makes each one type at a steady rate; it measures, for every update sent in the
 * measured window, the time from its send to its receipt at each other client of the room.
 *
 * Messages: it posts `{ type: 'connected' }` (or `{ type: 'failed', error }`), then, after `run`,
 * `{ type: 'progress', received }` every second and `{ type: 'result', … }`; on `close` it closes
 * its clients and posts `{ type: 'closed' }`.
 */
export interface DriverSetup {
  /** Each client: its global id (its marker's sender), the socket's URL, its room's document name and token (none for the relay). */
  clients: { id: number; url: string; room: string; token?: string }[];
  /** Updates each client types, warm-up included (none: the clients stay idle). */
  updatesPerClient: number;
}

export interface DriverRun {
  /** When typing starts (epoch ms, high resolution) and each client's updates a second. */
  startAt: number;
  rate: number;
  /** Updates per client before the measured window, and in it. */
  warmUpUpdates: number;
  measuredUpdates: number;
  /** The measured window (epoch ms), for the delivered rate. */
  windowStart: number;
  windowEnd: number;
  /** How long receipts may lag the last send before they count as lost (ms). */
  drainMs: number;
}

export interface DriverResult {
  type: 'result';
  /** Milliseconds from send to each other client's receipt, for the measured sends. */
  latencies: Float64Array;
  /** Receipts the measured sends should make, and those that arrived. */
  expected: number;
  received: number;
  /** Receipts of anyone's update (not a client's own) that arrived within the measured window. */
  inWindow: number;
  /** Updates sent in all, and in the measured window. */
  sent: number;
  measuredSent: number;
  /** Sends made later than scheduled by more than 20 ms: the client falling behind. */
  lateSends: number;
  /** The thread's event-loop utilization over the measured window (0–1). */
  utilization: number;
  /** Clients closed while running, with the first few reasons. */
  closed: number;
  closeReasons: string[];
}

const now = () => performance.timeOrigin + performance.now();
const setup = workerData as DriverSetup;
const port = parentPort!;

interface Client {
  id: number;
  socket: WebSocket;
  updates: Uint8Array[];
  /** Send times by sequence number (0: not sent). */
  sentAt: Float64Array;
  /** Its room's other clients. */
  peers: number;
}

const clients: Client[] = [];
const byId = new Map<number, Client>();
let onReceipt: (receiver: Client, sender: number, seq: number, at: number) => void = () => undefined;
let closed = 0;
const closeReasons: string[] = [];
let running = false;

async function connect(): Promise<void> {
  const peers = new Map<string, number>();
  for (const { room } of setup.clients) peers.set(room, (peers.get(room) ?? 0) + 1);
  // A few at a time, as users arrive, rather than a thousand handshakes in one instant.
  let next = 0;
  const opener = async () => {
    while (next < setup.clients.length) {
      const spec = setup.clients[next++]!;
      const client: Client = {
        id: spec.id,
        updates: typedUpdates(spec.room, spec.id, setup.updatesPerClient),
        sentAt: new Float64Array(setup.updatesPerClient),
        peers: peers.get(spec.room)! - 1,
        socket: undefined as unknown as WebSocket,
      };
      client.socket = await openClient(spec.url, spec.room, spec.token, (data) => {
        const at = now();
        for (const [sender, seq] of markersIn(data)) onReceipt(client, sender, seq, at);
      });
      client.socket.on('close', (code, reason) => {
        if (!running) return;
        closed++;
        if (closeReasons.length < 5) closeReasons.push(`${code} ${reason.toString()}`.trim());
      });
      clients.push(client);
      byId.set(client.id, client);
    }
  };
  await Promise.all(Array.from({ length: 16 }, opener));
}

async function run(settings: DriverRun): Promise<DriverResult> {
  running = true;
  const { startAt, rate, warmUpUpdates, measuredUpdates, windowStart, windowEnd, drainMs } = settings;
  const interval = 1000 / rate;
  const total = warmUpUpdates + measuredUpdates;
  let expected = 0;
  for (const client of clients) expected += client.peers * measuredUpdates;
  const latencies = new Float64Array(expected);
  let received = 0;
  let inWindow = 0;
  let sent = 0;
  let measuredSent = 0;
  let lateSends = 0;
  onReceipt = (receiver, sender, seq, at) => {
    if (sender === receiver.id) return; // Hocuspocus sends a client its own update back
    if (at >= windowStart && at < windowEnd) inWindow++;
    if (seq < warmUpUpdates || seq >= total) return;
    const sentAt = byId.get(sender)?.sentAt[seq];
    if (!sentAt) return; // not one of this thread's clients' sends (cannot happen: rooms are whole)
    if (received < expected) latencies[received++] = at - sentAt;
  };
  // Each client types at `rate` from its own random phase, so sends spread evenly over time.
  let typing = 0;
  const finished = new Promise<void>((resolve) => {
    for (const client of clients) {
      const phase = Math.random() * interval;
      let seq = 0;
      const type = () => {
        const due = startAt + phase + seq * interval;
        if (now() - due > 20) lateSends++;
        client.sentAt[seq] = now();
        client.socket.send(client.updates[seq]!);
        sent++;
        if (seq >= warmUpUpdates) measuredSent++;
        if (++seq < total) setTimeout(type, Math.max(0, startAt + phase + seq * interval - now()));
        else if (--typing === 0) resolve();
      };
      typing++;
      setTimeout(type, Math.max(0, startAt + phase - now()));
    }
  });
  let before = performance.eventLoopUtilization();
  let utilization = 0;
  const windowTimers = [
    setTimeout(() => (before = performance.eventLoopUtilization()), Math.max(0, windowStart - now())),
    setTimeout(() => (utilization = performance.eventLoopUtilization(before).utilization), Math.max(0, windowEnd - now())),
  ];
  const progress = setInterval(() => port.postMessage({ type: 'progress', received }), 1000);
  await finished;
  const deadline = now() + drainMs;
  while (received < expected && now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(progress);
  windowTimers.forEach(clearTimeout);
  running = false;
  return {
    type: 'result',
    latencies: latencies.subarray(0, received),
    expected,
    received,
    inWindow,
    sent,
    measuredSent,
    lateSends,
    utilization,
    closed,
    closeReasons,
  };
}

port.on('message', (message: { type: 'run'; settings: DriverRun } | { type: 'close' }) => {
  if (message.type === 'run') {
    void run(message.settings).then((result) => port.postMessage(result));
  } else {
    running = false;
    void Promise.all(clients.map(({ socket }) => closeClient(socket))).then(() => port.postMessage({ type: 'closed' }));
  }
});

connect().then(
  () => port.postMessage({ type: 'connected' }),
  (error: Error) => port.postMessage({ type: 'failed', error: error.message }),
);
