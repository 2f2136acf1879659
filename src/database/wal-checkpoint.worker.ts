import { parentPort, workerData } from 'node:worker_threads';
import { SqliteDatabase } from './sqlite-driver.js';

/**
 * Runs in a worker thread with a connection of its own: copies the write-ahead log into the
 * database file with passive checkpoints (they never block readers or the writer), so the
 * copying and its fsync happen beside the event loop instead of inside a request's commit.
 */
const { file, intervalMs, restartPages } = workerData as { file: string; intervalMs: number; restartPages: number };
const db = new SqliteDatabase(file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
parentPort!.postMessage({ kind: 'ready' });

type Result = { busy: number; log: number; checkpointed: number };
const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Result[];
    // SQLite starts the log over only when a writer begins right after a complete checkpoint,
    // which under a steady write load seldom happens: the log then grows until the connection's
    // own backstop checkpoints it inline, stalling the event loop for hundreds of ms. A log
    // already copied in full is started over here instead, if that can be done at once: with
    // no waiting, the service's connection is never held up by it (a reader or writer in the
    // way makes this attempt give up, and the next one try again).
    if (result && result.log >= restartPages && result.checkpointed === result.log) {
      db.pragma('busy_timeout = 0');
      try {
        db.pragma('wal_checkpoint(RESTART)');
      } finally {
        db.pragma('busy_timeout = 5000');
      }
    }
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
