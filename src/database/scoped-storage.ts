import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * An AsyncLocalStorage that is switched on only while a `run` of it is under way.
 *
 * On Node 20 an enabled AsyncLocalStorage installs promise hooks that copy the store onto every
 * promise and async resource the process creates, whether or not anything reads it; it stays
 * enabled for good after its first `run`. A request that never enters a unit of work (every
 * read) paid for them anyway: 4-5% of `domains/get`'s CPU in the hooks' own frames, more in
 * slower awaits. This one counts the runs under way and disables itself when the last settles,
 * so the hooks are on only while some unit's work can read them.
 *
 * What it changes: after the last run settles, `getStore()` answers undefined everywhere, also
 * in callbacks a run left scheduled behind it (its unit has ended: its manager's connection is
 * released, so nothing there may use it anyway). While a run is under way, everything works as
 * in AsyncLocalStorage. A run lasts until its callback's promise settles (units of work are
 * async functions); a callback that returns anything else, a foreign thenable included, ends
 * its run when it returns.
 */
export class ScopedStorage<T> extends AsyncLocalStorage<T> {
  private runsUnderWay = 0;

  override run<R>(store: T, callback: () => R): R;
  override run<R, A extends unknown[]>(store: T, callback: (...args: A) => R, ...args: A): R;
  override run<R, A extends unknown[]>(store: T, callback: (...args: A) => R, ...args: A): R {
    this.runsUnderWay++;
    let result: R;
    try {
      result = super.run(store, callback, ...args);
    } catch (error) {
      this.settled();
      throw error;
    }
    if (result instanceof Promise) {
      return result.finally(() => this.settled()) as R;
    }
    this.settled();
    return result;
  }

  private settled(): void {
    if (--this.runsUnderWay === 0) this.disable();
  }
}
