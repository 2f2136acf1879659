/**
 * The `RateLimit-Policy` and `RateLimit` response fields of draft-ietf-httpapi-ratelimit-headers-11
 * (May 2026): each a structured-field List of Items, one per limit the request counted against,
 * the Item a String naming the limit with its parameters. `RateLimit-Policy: "apiKey";q=6000;w=60`
 * gives the quota (`q`, requests) and the window (`w`, seconds); `RateLimit: "apiKey";r=5999;t=42`
 * what is left of the quota (`r`) and the seconds until the window ends (`t`).
 */
export const RATE_LIMIT_POLICY_FIELD = 'RateLimit-Policy';
export const RATE_LIMIT_FIELD = 'RateLimit';

/** Both fields' values for the limits a request counted against. */
export interface RateLimitFields {
  policy: string;
  limit: string;
}

/** A `RateLimit-Policy` item; names are the service's own identifiers, so no escaping is needed. */
export function policyItem(name: string, quota: number, windowMs: number): string {
  return `"${name}";q=${quota};w=${Math.ceil(windowMs / 1000)}`;
}

/** A `RateLimit` item: `remaining` requests (never below 0) for `resetSeconds`. */
export function limitItem(name: string, remaining: number, resetSeconds: number): string {
  return `"${name}";r=${remaining > 0 ? remaining : 0};t=${resetSeconds}`;
}
