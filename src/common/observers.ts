/**
 * Listeners a module registers at start-up to hear of another module's writes (memory and the
 * event outbox hear of activities and CRDT writes). They are called in registration order
 * inside the writing transaction, so a failing listener rolls the write back.
 */
export class Observers<T> {
  private readonly list: T[] = [];

  add(observer: T): void {
    this.list.push(observer);
  }

  async notify(call: (observer: T) => Promise<void>): Promise<void> {
    for (const observer of this.list) await call(observer);
  }
}
