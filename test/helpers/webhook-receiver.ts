import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the receiver got. */
export interface ReceivedHook {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as signatures are computed over it. */
  body: string;
  json: any;
  at: number;
}

/** How the receiver answers a path: a status (default 200) with headers, after a delay, or never. */
export type Answer = { status?: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

/** A real HTTP server on a loopback port that keeps every webhook it receives. */
export class WebhookReceiver {
  readonly received: ReceivedHook[] = [];
  /** Answers by path; a function decides per request (the n-th arrival at that path, 1-based). */
  readonly answers = new Map<string, Answer | ((hook: ReceivedHook, nth: number) => Answer)>();
  private server!: Server;
  private readonly hanging = new Set<ServerResponse>();
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const path = (req.url ?? '/').split('?')[0]!;
        const hook: ReceivedHook = { path, headers: req.headers, body, json, at: Date.now() };
        this.received.push(hook);
        const nth = this.received.filter((h) => h.path === path).length;
        const rule = this.answers.get(path);
        const answer = typeof rule === 'function' ? rule(hook, nth) : (rule ?? {});
        if (answer === 'hang') {
          this.hanging.add(res);
          res.on('close', () => this.hanging.delete(res));
          return;
        }
        const send = () => {
          res.writeHead(answer.status ?? 200, answer.headers ?? {});
          res.end('ok');
        };
        if (answer.delayMs) setTimeout(send, answer.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Hooks received at `path`. */
  at(path: string): ReceivedHook[] {
    return this.received.filter((hook) => hook.path === path);
  }

  /** Waits until `count` hooks arrived at `path`; returns them. */
  async waitFor(path: string, count = 1, timeoutMs = 10_000): Promise<ReceivedHook[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hooks = this.at(path);
      if (hooks.length >= count) return hooks;
      if (Date.now() > deadline) throw new Error(`${hooks.length} of ${count} hooks at ${path} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
