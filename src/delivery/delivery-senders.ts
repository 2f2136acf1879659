import { Injectable } from '@nestjs/common';
import { ConfigsService } from '../configs/configs.service.js';
import { WebhookEndpointStore, type DeliveryEndpoint } from '../configs/webhook-endpoint-store.js';
import { documentKey, DocumentStore } from '../directory/document-store.js';
import { DirectoryUserStore } from '../directory/directory-user-store.js';
import { AllowedDomainStore } from '../workspace/allowed-domain-store.js';
import type { EntityManager } from 'typeorm';
import type { DeliveryContext, MailContext, Released } from './delivery-context.js';
import type { AttemptResult } from './delivery-outcome.js';
import { InboxAudience } from './inbox-audience.js';
import { MailAudience } from './mail-audience.js';
import { MailSender } from './mail-sender.js';
import type { ClaimedDelivery, DeliveryOutcome } from './outbox-store.js';
import type { Cancellation } from './webhook-http.js';
import { WebhookSender } from './webhook-sender.js';

/**
 * The attempt of each channel, and what a claimed batch is sent with: one place that knows
 * which sender handles which channel.
 */
@Injectable()
export class DeliverySenders {
  constructor(
    private readonly webhooks: WebhookSender,
    private readonly audiences: MailAudience,
    private readonly inboxes: InboxAudience,
    private readonly mails: MailSender,
    private readonly configs: ConfigsService,
    private readonly endpoints: WebhookEndpointStore,
    private readonly users: DirectoryUserStore,
    private readonly documents: DocumentStore,
    private readonly domains: AllowedDomainStore,
  ) {}

  /**
   * One attempt; `latestStart` (`performance.now()`) is when it must have started for its
   * claim to outlast it.
   */
  attempt(delivery: ClaimedDelivery, context: DeliveryContext, latestStart: number, cancellation?: Cancellation): Promise<AttemptResult | Released> {
    const { configs } = context;
    if (!configs) return Promise.resolve({ sent: false, status: 'cancelled', reason: 'The API key no longer exists.' });
    switch (delivery.channel) {
      case 'webhook':
      case 'advanced_webhook':
        return this.webhooks.attempt(delivery, configs, context, latestStart, cancellation);
      case 'email_audience':
        return this.audiences.attempt(delivery, configs, latestStart);
      case 'email':
        return this.mails.attempt(delivery, configs, context.mail, latestStart, cancellation);
      case 'inbox_audience':
        return Promise.resolve(this.inboxes.attempt(context.inbox));
    }
  }

  /** What settled deliveries leave besides their outcome (an inbox audience's entries), in the settling unit of work. */
  async settled(manager: EntityManager, outcomes: readonly DeliveryOutcome[]): Promise<void> {
    await this.inboxes.write(manager, outcomes);
  }

  /**
   * What a claimed batch is sent with: key configs, advanced endpoints, for mails their
   * recipients, documents and the keys' allowed domains, and for inbox audiences their
   * recipients; a fixed number of queries per key (and per document, for inbox audiences),
   * whatever the batch's size. Called in the claiming unit of work, whose connection it reads on.
   */
  async contextsOf(claimed: readonly ClaimedDelivery[]): Promise<Map<string, DeliveryContext>> {
    if (!claimed.length) return new Map();
    const configs = await this.configs.storedConfigs([...new Set(claimed.map((d) => d.apiKeyId))]);
    const advanced = claimed.filter((d) => d.channel === 'advanced_webhook');
    const endpoints = advanced.length
      ? await this.endpoints.forDelivery(advanced.map((d) => ({ apiKeyId: d.apiKeyId, endpointId: d.target })))
      : new Map<string, DeliveryEndpoint>();
    const mails = await this.mailContexts(claimed.filter((d) => d.channel === 'email'));
    const inboxes = await this.inboxes.recipientsOf(claimed.filter((d) => d.channel === 'inbox_audience'));
    return new Map(
      claimed.map((d) => [
        d.id,
        {
          configs: configs.get(d.apiKeyId),
          ...(d.channel === 'advanced_webhook' && endpoints.has(d.target) ? { endpoint: endpoints.get(d.target) } : {}),
          ...(mails.has(d.id) ? { mail: mails.get(d.id) } : {}),
          ...(inboxes.has(d.id) ? { inbox: inboxes.get(d.id) } : {}),
        },
      ]),
    );
  }

  private async mailContexts(mails: readonly ClaimedDelivery[]): Promise<Map<string, MailContext>> {
    const contexts = new Map<string, MailContext>();
    if (!mails.length) return contexts;
    const byKey = new Map<string, ClaimedDelivery[]>();
    for (const mail of mails) (byKey.get(mail.apiKeyId) ?? byKey.set(mail.apiKeyId, []).get(mail.apiKeyId)!).push(mail);
    const domains = await this.domains.ofKeys([...byKey.keys()]);
    for (const [apiKeyId, ofKey] of byKey) {
      const [profiles, names] = await Promise.all([
        this.users.profiles(apiKeyId, [...new Set(ofKey.map((mail) => mail.target))]),
        this.documents.names(
          apiKeyId,
          ofKey.map((mail) => ({ organizationId: mail.event.organizationId, documentId: mail.event.documentId })),
        ),
      ]);
      for (const mail of ofKey) {
        const recipient = profiles.get(mail.target);
        contexts.set(mail.id, {
          ...(recipient ? { recipient } : {}),
          documentName: names.get(documentKey(mail.event.organizationId, mail.event.documentId)) ?? null,
          allowedDomains: domains.get(apiKeyId) ?? [],
        });
      }
    }
    return contexts;
  }
}
