import { Injectable } from '@nestjs/common';

/**
 * The time the delivery pipeline schedules by (next attempts, leases, how long an endpoint has
 * been failing). Injected, so tests step through a retry schedule of hours without sleeping;
 * everything else reads `Date.now()`.
 */
@Injectable()
export class Clock {
  /** Epoch milliseconds. */
  now(): number {
    return Date.now();
  }
}
