import type { DeliveryChannel, Destination } from './delivery-routes.js';
import type { DeliveryStatus } from './outbox-store.js';
import { ADVANCED_RETRY_DELAYS_MS, BASIC_RETRY_DELAYS_MS, parseRetryAfter, retryDelay } from './retry-schedule.js';

/** What one try at a delivery came to, before the retry rules judge it. */
export type AttemptResult =
  | {
      sent: true;
      /** The receiver's HTTP status, when it answered. */
      statusCode?: number;
      /** Why there was no usable answer (refused address, timeout, connection error). */
      error?: string;
      retryAfter?: string;
      /** The start of the receiver's answer body (bounded), kept in the attempt log. */
      answer?: string;
      durationMs: number;
      /**
       * Settles the delivery whatever the status code says, where there is no HTTP answer to
       * judge: a mail accepted or kept (`succeeded`), or refused for good (`failed`, an SMTP 5xx).
       */
      verdict?: 'succeeded' | 'failed';
      /** Deliveries this one leads to (an audience's mails), written with its outcome. */
      followUps?: Destination[];
      /** Users whose inbox gets an entry of the event (an inbox audience's), written with its outcome. */
      inbox?: readonly string[];
    }
  /** Settled without a request: the destination is gone (`cancelled`) or switched off (`failed`). */
  | { sent: false; status: 'cancelled' | 'failed'; reason: string };

export interface Judgment {
  status: DeliveryStatus;
  /** When the next attempt is due; null once the delivery is settled. */
  nextAttemptAt: number | null;
  error: string | null;
  /** The receiver answered 410 Gone: an advanced endpoint is disabled at once. */
  gone: boolean;
}

/**
 * The retry rules of contract 6.3: a 2xx succeeds; 410 Gone fails for good; any other answer,
 * a redirect (never followed), a timeout or a refused address is retried on the channel's
 * schedule (basic webhooks the short one) until `maxAttempts` attempts have been made. A
 * `verdict` settles at once.
 */
export function judge(
  delivery: { channel: DeliveryChannel; attempts: number; maxAttempts: number },
  result: AttemptResult,
  now: number,
  random: () => number = Math.random,
): Judgment {
  if (!result.sent) return { status: result.status, nextAttemptAt: null, error: result.reason, gone: false };
  if (result.verdict) return { status: result.verdict, nextAttemptAt: null, error: result.error ?? null, gone: false };
  const code = result.statusCode;
  if (code !== undefined && code >= 200 && code < 300) return { status: 'succeeded', nextAttemptAt: null, error: null, gone: false };
  if (code === 410) return { status: 'failed', nextAttemptAt: null, error: 'The receiver answered 410 Gone.', gone: true };
  const error =
    result.error ?? (code !== undefined && code >= 300 && code < 400 ? `Redirects are not followed (HTTP ${code}).` : `The receiver answered HTTP ${code}.`);
  const made = delivery.attempts + 1;
  const delay =
    made < delivery.maxAttempts
      ? retryDelay(delivery.channel === 'webhook' ? BASIC_RETRY_DELAYS_MS : ADVANCED_RETRY_DELAYS_MS, made, parseRetryAfter(result.retryAfter, now), random)
      : undefined;
  return delay === undefined
    ? { status: 'failed', nextAttemptAt: null, error, gone: false }
    : { status: 'pending', nextAttemptAt: now + delay, error, gone: false };
}
