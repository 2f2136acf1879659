import { Injectable } from '@nestjs/common';

/**
 * The time the delivery pipeline schedules by (next attempts, leases, how long an endpoint has
 * been failing), and console sessions and attachment links expire by. Injected, so tests step
 * through a retry schedule of hours, or past a session's or a link's end, without sleeping;
 * everything else reads `Date.now()`.
 */
@Injectable()
export class Clock {
  /** Epoch milliseconds. */
  now(): number {
    return Date.now();
  }
}
