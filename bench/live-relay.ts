import { WebSocketServer, type WebSocket } from 'ws';

/**
 * The live fan-out run's bare baseline: a `ws` server that sends each message, its bytes
 * unchanged, to the other clients of the same room (the URL's path); no auth, no document, no
 * storage. Run as its own process by `live.ts` (port in `RELAY_PORT`), as the service runs in
 * its own.
 */
// Exits as the service does on SIGTERM, so a profile (--cpu-prof) is written; and with the run.
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));

const rooms = new Map<string, Set<WebSocket>>();
const server = new WebSocketServer({ host: '127.0.0.1', port: Number(process.env.RELAY_PORT) }, () => process.send?.('ready'));

server.on('connection', (socket, request) => {
  const name = request.url ?? '/';
  let room = rooms.get(name);
  if (!room) rooms.set(name, (room = new Set()));
  room.add(socket);
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    for (const peer of room) if (peer !== socket) peer.send(data, { binary: isBinary });
  });
  socket.on('close', () => {
    room.delete(socket);
    if (!room.size) rooms.delete(name);
  });
});
