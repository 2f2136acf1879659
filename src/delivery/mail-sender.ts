import { Injectable } from '@nestjs/common';
import { checkEmail } from '../common/validation/checks.js';
import { AppConfig } from '../config/app-config.js';
import { ConfigCodec } from '../workspace/config-codec.js';
import type { KeyConfigs, StoredEmailConfig } from '../workspace/key-configs.js';
import { addressOf, Mailer } from '../mail/mailer.service.js';
import { MailTemplates, type RenderedMail } from '../mail/mail-templates.js';
import type { AttemptResult } from './delivery-outcome.js';
import type { MailContext, Released } from './delivery-context.js';
import { notificationMailModel, type NotificationMailModel } from './notification-mail.js';
import type { ClaimedDelivery } from './outbox-store.js';
import { WebhookHttp, type Cancellation } from './webhook-http.js';

/** The templates notification mails are rendered from (`templates/mail/notification.*.hbs`). */
const TEMPLATE_KIND = 'notification';

/**
 * Sends one notification mail (contract 6.4), rendered from the operator's templates, through
 * the transport the key's email config names: `default` the server's SMTP (`SMTP_URL`; kept
 * and printed without it), `thirdparty` the provider's mail-send API (`EMAIL_PROVIDER_URL`),
 * `custom` the provider when a provider API key is stored, else SMTP. A refusal for good (an
 * SMTP 5xx, a provider 4xx) fails the mail at once; anything else is retried.
 */
@Injectable()
export class MailSender {
  constructor(
    private readonly config: AppConfig,
    private readonly codec: ConfigCodec,
    private readonly mailer: Mailer,
    private readonly templates: MailTemplates,
    private readonly http: WebhookHttp,
  ) {
    if (!templates.has(TEMPLATE_KIND)) throw new Error(`MAIL_TEMPLATES_DIR: ${config.mailTemplatesDir} has no ${TEMPLATE_KIND}.subject.hbs`);
  }

  async attempt(
    delivery: ClaimedDelivery,
    configs: KeyConfigs,
    context: MailContext | undefined,
    latestStart: number,
    cancellation?: Cancellation,
  ): Promise<AttemptResult | Released> {
    if (!configs.email.useEmailService) return { sent: false, status: 'cancelled', reason: 'The email service is off.' };
    const recipient = context?.recipient;
    if (!context || !recipient) return { sent: false, status: 'cancelled', reason: 'The user no longer exists.' };
    if (!recipient.email) return { sent: false, status: 'cancelled', reason: 'The user has no e-mail address.' };
    // Stored before users' addresses were checked: a list or a line break would add recipients.
    if (checkEmail(recipient.email)) return { sent: false, status: 'failed', reason: "The user's e-mail address is not one valid address." };
    const { emailServiceConfig } = this.codec.emailView(configs.email);
    const model = notificationMailModel(
      delivery.event,
      { userId: delivery.target, name: recipient.name, email: recipient.email },
      { ...context, company: emailServiceConfig.fromCompany },
    );
    const mail = this.templates.render(TEMPLATE_KIND, model);
    if (performance.now() > latestStart) return { released: true };
    if (viaProvider(configs.email, emailServiceConfig.apiKey)) {
      if (!emailServiceConfig.apiKey) return { sent: false, status: 'failed', reason: 'No e-mail provider API key is set.' };
      return this.viaProvider(delivery, emailServiceConfig, model, mail, cancellation);
    }
    return this.viaSmtp(delivery, emailServiceConfig, recipient.email, mail);
  }

  private async viaSmtp(
    delivery: ClaimedDelivery,
    settings: { fromEmail: string; fromCompany: string },
    to: string,
    mail: RenderedMail,
  ): Promise<AttemptResult> {
    const sent = await this.mailer.transmit({
      to,
      ...mail,
      ...(settings.fromCompany ? { fromName: settings.fromCompany } : {}),
      ...(settings.fromEmail ? { replyTo: settings.fromEmail } : {}),
      // The same on every attempt: a mail handed over twice (at-least-once) reads as one.
      messageId: `<${delivery.id}@${messageIdDomain(this.config.mailFrom)}>`,
    });
    const code = sent.responseCode === undefined ? {} : { statusCode: sent.responseCode };
    if (sent.accepted) return { sent: true, verdict: 'succeeded', ...code, durationMs: sent.durationMs };
    const error = `SMTP: ${sent.error ?? 'the mail was not accepted'}`;
    // 5xx is the server's "never", except for authentication, which an operator can fix.
    const refused = sent.responseCode !== undefined && sent.responseCode >= 500 && sent.responseCode !== 530 && sent.responseCode !== 535;
    return { sent: true, ...code, error, durationMs: sent.durationMs, ...(refused ? { verdict: 'failed' as const } : {}) };
  }

  /** The provider's mail-send API (request shape of SendGrid's v3 `mail/send`). */
  private async viaProvider(
    delivery: ClaimedDelivery,
    settings: { apiKey: string; fromEmail: string; fromCompany: string; commentTemplateId: string; tagTemplateId: string },
    model: NotificationMailModel,
    mail: RenderedMail,
    cancellation?: Cancellation,
  ): Promise<AttemptResult> {
    // A mention uses the tag template when one is set; everything else the comment template.
    const templateId = (model.mentioned && settings.tagTemplateId) || settings.commentTemplateId;
    const to = { email: model.recipient.email!, ...(model.recipient.name ? { name: model.recipient.name } : {}) };
    const body = {
      personalizations: [{ to: [to], ...(templateId ? { dynamic_template_data: { ...model, subject: mail.subject } } : {}) }],
      from: { email: settings.fromEmail || addressOf(this.config.mailFrom), ...(settings.fromCompany ? { name: settings.fromCompany } : {}) },
      ...(templateId
        ? { template_id: templateId }
        : {
            subject: mail.subject,
            content: [
              { type: 'text/plain', value: mail.text },
              { type: 'text/html', value: mail.html },
            ],
          }),
      custom_args: { deliveryId: delivery.id, messageId: delivery.messageId },
    };
    const answer = await this.http.post(this.config.emailProviderUrl, { authorization: `Bearer ${settings.apiKey}` }, JSON.stringify(body), cancellation, {
      trusted: true,
      keepAnswer: 'failures',
    });
    const code = answer.statusCode;
    if (code === undefined || (code >= 200 && code < 300)) return { sent: true, ...answer };
    const error = `The e-mail provider answered HTTP ${code}${answer.answer ? `: ${answer.answer}` : ''}`;
    // A 4xx other than a timeout or a rate limit is the request's fault: sending it again changes nothing.
    const refused = code >= 400 && code < 500 && code !== 408 && code !== 429;
    return { sent: true, ...answer, error, ...(refused ? { verdict: 'failed' as const } : {}) };
  }
}

/** `thirdparty` always; `custom` when a provider API key is stored (contract part 3). */
function viaProvider(stored: StoredEmailConfig, apiKey: string): boolean {
  const { type } = stored.emailServiceConfig;
  return type === 'thirdparty' || (type === 'custom' && apiKey !== '');
}

function messageIdDomain(mailFrom: string): string {
  const address = addressOf(mailFrom);
  return address.includes('@') ? address.slice(address.lastIndexOf('@') + 1) : 'localhost';
}
