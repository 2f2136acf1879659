import { performance } from 'node:perf_hooks';
import { Session } from 'node:inspector';

/**
 * Gives back the memory that starting took and serving does not need, before the port opens.
 * Loading some 1,400 modules and running the migrations fill V8's young generation to its limit
 * (two 16 MB semi-spaces) and leave their garbage in the old generation; V8 shrinks both only
 * once its memory reducer finds the process idle, 30-40 s later, so an idle instance held about
 * 160 MB instead of 125. The inspector's `HeapProfiler.collectGarbage` is V8's low-memory
 * notification: full collections that also shrink the young generation, which a plain forced
 * collection does not. The session is in-process (no port is opened) and is closed at once; the
 * young generation grows back as the load needs it. Resolves with the milliseconds it took, or
 * undefined where Node was built without the inspector.
 */
export async function releaseStartupMemory(): Promise<number | undefined> {
  const started = performance.now();
  let session: Session;
  try {
    session = new Session();
    session.connect();
  } catch {
    return undefined;
  }
  try {
    await new Promise<void>((resolve, reject) => session.post('HeapProfiler.collectGarbage', (error) => (error ? reject(error) : resolve())));
  } catch {
    return undefined;
  } finally {
    session.disconnect();
  }
  return Math.round(performance.now() - started);
}
