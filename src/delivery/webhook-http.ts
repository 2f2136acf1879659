import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { AppConfig } from '../config/app-config.js';

/** What one POST came to. */
export interface PostResult {
  /** The receiver's HTTP status, when it answered. */
  statusCode?: number;
  /** Why there is no usable answer (refused address, timeout, connection error), or what was wrong with it. */
  error?: string;
  /** The receiver's `Retry-After` header, as sent. */
  retryAfter?: string;
  /** The start of the answer's body, when asked for (`keepAnswer`). */
  answer?: string;
  durationMs: number;
}

export interface PostOptions {
  /** The operator chose the address (the e-mail provider's): the private-network guard does not apply. */
  trusted?: boolean;
  /**
   * Keep the start of the answer's body: of a non-2xx one (`failures`: an API's error explains
   * itself), or of any (`all`: a webhook log shows what each receiver said, as Svix's does).
   */
  keepAnswer?: 'failures' | 'all';
}

/** How much of an answer `keepAnswer` keeps. */
const KEPT_ANSWER_CHARS = 500;

/**
 * Stops one attempt in flight (its endpoint was deleted). Lighter than an AbortController,
 * which matters at one per attempt.
 */
export class Cancellation {
  private handler: (() => void) | undefined;
  /** Why it was cancelled: its destination was deleted, or the worker is stopping. */
  reason: 'deleted' | 'stopping' | undefined;

  get cancelled(): boolean {
    return this.reason !== undefined;
  }

  cancel(reason: 'deleted' | 'stopping'): void {
    this.reason = reason;
    this.handler?.();
  }

  /** What `cancel` does to the request under way (set by `WebhookHttp.post`). */
  onCancel(handler: (() => void) | undefined): void {
    this.handler = handler;
  }
}

/** How often requests are checked against their deadlines: one timer for all of them, not one each. */
const DEADLINE_SWEEP_MS = 100;

/** At most this much of an answer is read (and thrown away); a receiver has nothing to tell us. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const USER_AGENT = 'collab-backend-webhooks/1';

/**
 * Why a webhook may not be sent to `address`, or `undefined` when it may. Only global unicast
 * addresses pass: loopback, private, link-local, CGNAT, multicast, reserved, documentation and
 * every other special range are refused (ipaddr.js keeps the IANA registries' ranges); an
 * IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function refusedAddress(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  let range = parsed.range();
  // ipaddr.js calls all of IPv6 it has no name for unicast, IPv4-compatible `::a.b.c.d` and the
  // rest of `::/8` included; only global unicast (2000::/3) is public.
  if (range === 'unicast' && parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) range = 'reserved';
  return range === 'unicast' ? undefined : `${address} is a ${range} address; webhooks go to public addresses only (WEBHOOK_ALLOW_PRIVATE_NETWORKS)`;
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * A DNS lookup that drops refused addresses from the answer, so the connection can only go to
 * an address that was checked (no window for DNS rebinding between check and connect).
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const allowed = addresses.filter((entry) => refusedAddress(entry.address) === undefined);
    if (!allowed.length) {
      const reason = refusedAddress(addresses[0]?.address ?? '') ?? 'no address';
      return callback(Object.assign(new Error(`${hostname} resolves to no public address: ${reason}`), { code: 'EADDRREFUSED' }), '', 0);
    }
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, allowed);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
};

/**
 * POSTs webhook bodies: keep-alive connections, no redirects followed (a 3xx is the answer),
 * the whole exchange bounded by `WEBHOOK_TIMEOUT_MS`, and unless
 * `WEBHOOK_ALLOW_PRIVATE_NETWORKS` every address checked before connecting (contract 6.3).
 */
@Injectable()
export class WebhookHttp implements OnApplicationShutdown {
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 60_000 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 60_000 });
  /** Requests under way and when each must have been answered (`performance.now()`). */
  private readonly deadlines = new Map<ClientRequest, number>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly config: AppConfig) {}

  post(url: string, headers: Record<string, string>, body: string, cancellation?: Cancellation, options: PostOptions = {}): Promise<PostResult> {
    const guarded = !this.config.webhookAllowPrivateNetworks && !options.trusted;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve({ error: `Invalid URL: ${url}`, durationMs: 0 });
    }
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') return Promise.resolve({ error: `Unsupported protocol ${target.protocol}`, durationMs: 0 });
    const hostname = target.hostname.replace(/^\[|\]$/g, '');
    if (guarded && isIP(hostname)) {
      const refused = refusedAddress(hostname);
      if (refused) return Promise.resolve({ error: `Refused: ${refused}`, durationMs: 0 });
    }
    const payload = Buffer.from(body, 'utf8');
    return new Promise<PostResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<PostResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        this.deadlines.delete(req);
        cancellation?.onCancel(undefined);
        resolve({ ...result, durationMs: elapsed() });
      };
      const send = secure ? httpsRequest : httpRequest;
      const req = send(target, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: { 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': USER_AGENT, ...headers },
        ...(guarded ? { lookup: publicOnlyLookup } : {}),
      });
      this.deadlines.set(req, started + this.config.webhookTimeoutMs);
      this.sweeper ??= setInterval(() => this.sweep(), DEADLINE_SWEEP_MS).unref();
      cancellation?.onCancel(() => req.destroy(new Error('Delivery cancelled')));
      req.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.code === 'EADDRREFUSED' ? `Refused: ${error.message}` : error.message }));
      req.on('response', (res: IncomingMessage) => {
        const retryAfter = res.headers['retry-after'];
        const answer: Omit<PostResult, 'durationMs'> = { statusCode: res.statusCode, ...(typeof retryAfter === 'string' ? { retryAfter } : {}) };
        const keep = options.keepAnswer === 'all' || (options.keepAnswer === 'failures' && (res.statusCode ?? 0) >= 300);
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (keep && (answer.answer?.length ?? 0) < KEPT_ANSWER_CHARS)
            answer.answer = ((answer.answer ?? '') + chunk.toString('utf8')).slice(0, KEPT_ANSWER_CHARS);
          // The status is all we need; a receiver streaming a large answer does not hold us.
          if (read > MAX_RESPONSE_BYTES) {
            finish(answer);
            res.destroy();
          }
        });
        res.on('end', () => finish(answer));
        res.on('error', (error) => finish({ ...answer, error: error.message }));
      });
      if (cancellation?.cancelled) req.destroy(new Error('Delivery cancelled'));
      req.end(payload);
    });
  }

  /** Ends requests past their deadline; stops when none are under way. */
  private sweep(): void {
    const now = performance.now();
    for (const [req, deadline] of this.deadlines) if (deadline <= now) req.destroy(new Error(`No answer within ${this.config.webhookTimeoutMs} ms`));
    if (!this.deadlines.size) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
