import { createServer } from 'node:http';

/**
 * The benchmark's webhook receiver, a process of its own (as a customer's receiver would be):
 * answers 204 at once, except on `/hang*` paths, which never answer. Counts arrivals per path
 * and their first and last times; on `/lag*` paths keeps each activity's arrival time.
 * Asked over IPC: `{ stats: path }` → `{ count, first, last }`, `{ arrivals: path }` → `{ [activityId]: time }`.
 * Times are absolute milliseconds (`performance.timeOrigin + performance.now()`).
 */
const now = () => performance.timeOrigin + performance.now();
const counts = new Map<string, { count: number; first: number; last: number }>();
const arrivals = new Map<string, Record<string, number>>();

const server = createServer((req, res) => {
  const path = req.url ?? '/';
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = now();
    const entry = counts.get(path) ?? counts.set(path, { count: 0, first: at, last: at }).get(path)!;
    entry.count++;
    entry.last = at;
    if (path.startsWith('/lag')) {
      const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: string } }).data.id;
      (arrivals.get(path) ?? arrivals.set(path, {}).get(path)!)[id] = at;
    }
    if (path.startsWith('/hang')) return;
    res.writeHead(204);
    res.end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));

process.on('message', (message: { stats?: string; arrivals?: string }) => {
  if (message.stats !== undefined) process.send!({ stats: counts.get(message.stats) ?? { count: 0, first: 0, last: 0 } });
  if (message.arrivals !== undefined) process.send!({ arrivals: arrivals.get(message.arrivals) ?? {} });
});
