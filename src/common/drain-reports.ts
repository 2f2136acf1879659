import { Injectable } from '@nestjs/common';

/** How many of one kind of work shutdown waits for, read when it begins. */
export type DrainCount = () => number;

/**
 * What a shutdown waits for besides requests in flight, counted by the modules that own it (live
 * rooms to store, deliveries in flight, mail being sent): `main.ts` logs them in one line when
 * the drain begins, and again if the shutdown runs out of time.
 */
@Injectable()
export class DrainReports {
  private readonly counts = new Map<string, DrainCount>();

  add(name: string, count: DrainCount): void {
    this.counts.set(name, count);
  }

  read(): Record<string, number> {
    return Object.fromEntries([...this.counts].map(([name, count]) => [name, count()]));
  }
}
