import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { AppConfig } from '../config/app-config.js';
import { DrainReports } from '../common/drain-reports.js';
import { nodemailer } from '../common/optional-modules.js';
import { OutgoingMailStore, type MailStatus } from './outgoing-mail-store.js';

export type { MailStatus } from './outgoing-mail-store.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative to `text`. */
  html?: string;
  /** Display name of the sender, in place of `MAIL_FROM`'s; the address is always `MAIL_FROM`'s. */
  fromName?: string;
  replyTo?: string;
  /** A `Message-ID` that stays the same when the mail is sent again, so clients can drop duplicates. */
  messageId?: string;
}

/** What handing one mail to the SMTP server came to. */
export interface Transmission {
  /** The server accepted it; or, without `SMTP_URL`, it was kept. */
  accepted: boolean;
  kept: boolean;
  /** The server's SMTP reply code, when it gave one. */
  responseCode?: number;
  error?: string;
  durationMs: number;
}

/** How long one mail may take to hand over before it is given up (and tried again later). */
const TRANSMIT_TIMEOUT_MS = 15_000;

/**
 * The service's mail transport: SMTP through `nodemailer` (a small connection pool) when
 * `SMTP_URL` is set; otherwise mail is printed to the log and kept in `outgoing_mail`
 * (encrypted), so nothing is lost in development. Login links and notification mails both go
 * through it.
 */
@Injectable()
export class Mailer implements OnApplicationShutdown {
  private readonly logger = new Logger('Mailer');
  private readonly transport: Transporter | undefined;
  /** Work started by `inBackground`, awaited on shutdown. */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly config: AppConfig,
    private readonly store: OutgoingMailStore,
    drain: DrainReports,
  ) {
    drain.add('mailBeingSent', () => this.pending.size);
    // Bounded waits: nodemailer's defaults allow minutes per stage.
    this.transport = config.smtpUrl
      ? nodemailer().createTransport({
          url: config.smtpUrl,
          pool: true,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 30_000,
        } as SMTPTransport.Options)
      : undefined;
  }

  /** Whether mail goes to an SMTP server (else it is kept). */
  get sends(): boolean {
    return this.transport !== undefined;
  }

  /**
   * The service's own mail (login links): sent, or kept; recorded either way. Never throws for
   * a transport failure, which is recorded instead.
   */
  async send(message: MailMessage): Promise<MailStatus> {
    const sent = await this.transmit(message);
    const status: MailStatus = sent.kept ? 'kept' : sent.accepted ? 'sent' : 'failed';
    if (status === 'failed') this.logger.warn({ to: message.to, subject: message.subject, error: sent.error }, 'Mail delivery failed');
    if (status !== 'kept') await this.record(message, status, sent.error ?? null);
    return status;
  }

  /**
   * Hands one mail to the SMTP server, within a bounded time; without `SMTP_URL`, keeps it
   * (printed and recorded). Never throws: the answer says what happened.
   */
  async transmit(message: MailMessage): Promise<Transmission> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (!this.transport) {
      this.logger.log({ to: message.to, subject: message.subject, text: message.text }, 'Mail kept (SMTP_URL is not set)');
      await this.record(message, 'kept', null);
      return { accepted: true, kept: true, durationMs: elapsed() };
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`No answer from the SMTP server within ${TRANSMIT_TIMEOUT_MS} ms`)), TRANSMIT_TIMEOUT_MS);
    });
    try {
      const info = (await Promise.race([
        this.transport.sendMail({
          from: message.fromName ? { name: message.fromName, address: addressOf(this.config.mailFrom) } : this.config.mailFrom,
          to: message.to,
          subject: message.subject,
          text: message.text,
          ...(message.html === undefined ? {} : { html: message.html }),
          ...(message.replyTo ? { replyTo: message.replyTo } : {}),
          ...(message.messageId ? { messageId: message.messageId } : {}),
        }),
        timeout,
      ])) as { response?: string };
      return { accepted: true, kept: false, responseCode: replyCode(info.response), durationMs: elapsed() };
    } catch (cause) {
      const error = cause as Error & { responseCode?: number };
      return { accepted: false, kept: false, ...(error.responseCode ? { responseCode: error.responseCode } : {}), error: error.message, durationMs: elapsed() };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Keeps a record of a mail (`OutgoingMailStore`). */
  private record(message: MailMessage, status: MailStatus, error: string | null): Promise<void> {
    return this.store.record(message, this.transport ? 'smtp' : 'log', status, error);
  }

  /**
   * Runs mail work after the response (so its duration reveals nothing to the caller); failures
   * are logged; shutdown waits for it.
   */
  inBackground(work: () => Promise<unknown>): void {
    const running = work()
      .catch((error: unknown) => this.logger.error({ err: error }, 'Background mail work failed'))
      .finally(() => this.pending.delete(running));
    this.pending.add(running);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.pending]);
    this.transport?.close();
  }
}

/** The reply code at the start of an SMTP server's answer (`250 OK: queued`). */
function replyCode(response: string | undefined): number | undefined {
  const code = Number(response?.slice(0, 3));
  return Number.isInteger(code) && code >= 200 ? code : undefined;
}

/** The bare address of a mailbox written `address` or `Name <address>` (as `MAIL_FROM` may be). */
export function addressOf(mailbox: string): string {
  return /<([^<>]+)>\s*$/.exec(mailbox)?.[1] ?? mailbox;
}
