import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/**
 * Runs in a worker thread with a connection of its own: copies the write-ahead log into the
 * database file with passive checkpoints (they never block readers or the writer), so the
 * copying and its fsync happen beside the event loop instead of inside a request's commit.
 */
const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');

type Result = { busy: number; log: number; checkpointed: number };
const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Result[];
    if (result && result.log > 0) parentPort!.postMessage({ kind: 'checkpoint', ...result });
  } catch (error) {
    parentPort!.postMessage({ kind: 'error', message: (error as Error).message });
  }
}, intervalMs);

parentPort!.on('message', (message: { kind: string }) => {
  if (message.kind !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort!.close();
});
