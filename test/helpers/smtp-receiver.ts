import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  raw: string;
  /** Body with quoted-printable soft breaks and escapes undone. */
  text: string;
  /** The header `name` (lower-case), unfolded; undefined when absent. */
  header(name: string): string | undefined;
}

/** A real SMTP server on a free loopback port that keeps what it receives. */
export class SmtpReceiver {
  readonly mails: ReceivedMail[] = [];
  /** Recipients refused for good (550), as a server refuses an address it does not know. */
  readonly refused = new Set<string>();
  private server!: SMTPServer;
  port = 0;

  async start(): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo: (address, _session, callback) => {
        if (this.refused.has(address.address)) return callback(Object.assign(new Error(`5.1.1 <${address.address}>: no such user`), { responseCode: 550 }));
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          this.mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, text: decodeQuotedPrintable(raw), header: (name) => headerOf(raw, name) });
          callback();
        });
      },
    });
    // A client killed mid-session (the crash tests) resets its connection: not the server's failure.
    this.server.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') throw error;
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Waits until a mail to `address` arrives (among those received after the first `since`). */
  async waitFor(address: string, timeoutMs = 5000, since = 0): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mail = this.mails.slice(since).find((m) => m.to.includes(address));
      if (mail) return mail;
      if (Date.now() > deadline) throw new Error(`No mail to ${address} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function headerOf(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/, 1)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}
