const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after each failed attempt of an advanced webhook (contract 6.3): 8 attempts in all. */
export const ADVANCED_RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
/** Basic webhooks use the first three retries only: 4 attempts in all. */
export const BASIC_RETRY_DELAYS_MS: readonly number[] = ADVANCED_RETRY_DELAYS_MS.slice(0, 3);
/** ±20% of the scheduled wait, so endpoints that failed together are not retried together. */
const JITTER = 0.2;

/**
 * How long to wait before the next attempt, after `attemptsMade` attempts (1-based) failed;
 * `undefined` when the schedule is spent. The scheduled wait carries jitter; a `Retry-After`
 * the receiver sent lengthens it, up to twice the scheduled wait (a shorter one cannot hurry
 * the schedule along). `random` returns [0, 1).
 */
export function retryDelay(
  delays: readonly number[],
  attemptsMade: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const scheduled = delays[attemptsMade - 1];
  if (scheduled === undefined) return undefined;
  const jittered = Math.round(scheduled * (1 - JITTER + 2 * JITTER * random()));
  return retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(retryAfterMs, 2 * scheduled));
}

/** An HTTP date as senders write it (RFC 9110's IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`. */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110); `undefined` when
 * absent or unreadable.
 */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * SECOND;
  if (!HTTP_DATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
