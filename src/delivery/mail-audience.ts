import { Injectable } from '@nestjs/common';
import type { KeyConfigs } from '../workspace/key-configs.js';
import type { AttemptResult } from './delivery-outcome.js';
import { mailDestination } from './delivery-routes.js';
import type { Released } from './delivery-context.js';
import { NotificationRecipients } from './notification-recipients.js';
import type { ClaimedDelivery } from './outbox-store.js';

/**
 * Works out who is mailed about an event (contract 6.4): the users who may see its document
 * and whose e-mail preference selects it, never the acting user, only those with an e-mail
 * address. Its outcome carries one `email` delivery per recipient, written with it, so each
 * mail is retried and recorded on its own and one bad address stops no other. Done by the
 * worker rather than in the API write, which stays as fast as it was however large the audience.
 */
@Injectable()
export class MailAudience {
  constructor(private readonly recipients: NotificationRecipients) {}

  async attempt(delivery: ClaimedDelivery, configs: KeyConfigs, latestStart: number): Promise<AttemptResult | Released> {
    if (!configs.email.useEmailService) return { sent: false, status: 'cancelled', reason: 'The email service is off.' };
    const started = performance.now();
    const recipients = await this.recipients.of(delivery.apiKeyId, delivery.event);
    // Its outcome (and with it the mails) is written under the claim: past the lease, another
    // worker may be doing this too, so it goes back instead.
    if (performance.now() > latestStart) return { released: true };
    const mailed = recipients.filter((recipient) => recipient.channels.includes('email') && recipient.email);
    return {
      sent: true,
      verdict: 'succeeded',
      durationMs: Math.round(performance.now() - started),
      followUps: mailed.map((recipient) => mailDestination(delivery.apiKeyId, recipient.userId)),
    };
  }
}
