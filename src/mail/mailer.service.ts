import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Repository } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { newSortableId } from '../common/ids.js';
import { Secrets } from '../common/secrets.js';
import { OutgoingMailEntity, type MailStatus } from './outgoing-mail.entity.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * The service's own mail (login links): SMTP through `nodemailer` when `SMTP_URL` is set;
 * otherwise the mail is printed to the log and kept, so nothing is lost in development.
 */
@Injectable()
export class Mailer implements OnApplicationShutdown {
  private readonly logger = new Logger('Mailer');
  private readonly transport: Transporter | undefined;
  /** Work started by `inBackground`, awaited on shutdown. */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly config: AppConfig,
    private readonly secrets: Secrets,
    @InjectRepository(OutgoingMailEntity) private readonly mails: Repository<OutgoingMailEntity>,
  ) {
    // Bounded waits: nodemailer's defaults allow minutes per stage.
    this.transport = config.smtpUrl
      ? nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 } as SMTPTransport.Options)
      : undefined;
  }

  /** Sends (or keeps) one mail; never throws for a transport failure, which is recorded instead. */
  async send(message: MailMessage): Promise<MailStatus> {
    let status: MailStatus = 'kept';
    let error: string | null = null;
    if (this.transport) {
      try {
        await this.transport.sendMail({ from: this.config.mailFrom, to: message.to, subject: message.subject, text: message.text });
        status = 'sent';
      } catch (cause) {
        status = 'failed';
        error = (cause as Error).message;
        this.logger.warn({ to: message.to, subject: message.subject, error }, 'Mail delivery failed');
      }
    } else {
      this.logger.log({ to: message.to, subject: message.subject, text: message.text }, 'Mail kept (SMTP_URL is not set)');
    }
    await this.mails.insert({
      id: newSortableId('msg_'),
      recipient: message.to,
      subject: message.subject,
      contentEnc: this.secrets.encrypt(JSON.stringify({ text: message.text })),
      transport: this.transport ? 'smtp' : 'log',
      status,
      error,
      createdAt: Date.now(),
    });
    return status;
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
