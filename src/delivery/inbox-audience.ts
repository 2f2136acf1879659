import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { groupBy } from '../common/collections.js';
import type { AttemptResult } from './delivery-outcome.js';
import { NotificationRecipients } from './notification-recipients.js';
import type { OutboxEvent } from './outbox-event.js';
import type { ClaimedDelivery, DeliveryOutcome } from './outbox-store.js';

/** An event's inbox entry and the users who get it. */
export interface InboxEntry {
  event: OutboxEvent;
  recipients: readonly string[];
}

/**
 * Writes inbox entries. The inbox module, which sits above delivery, provides it
 * (`InboxAudience.writer`); until it does, inbox audiences are cancelled.
 */
export interface InboxEntryWriter {
  /** Writes the entries in the caller's unit of work (the one settling their deliveries). */
  write(manager: EntityManager, apiKeyId: string, entries: readonly InboxEntry[]): Promise<void>;
}

/**
 * Works out whose inbox hears of an event (contract 6.4: the users who may see its document and
 * whose inbox preference selects it, never the acting user) and has the entries written with the
 * delivery's outcome, so they exist exactly once its audience is settled. Done by the worker, as
 * the mail audience is, rather than in the comment write: a claimed batch's audiences are read
 * once per document, not once per comment, and the entries of the batch go in together.
 */
@Injectable()
export class InboxAudience {
  writer: InboxEntryWriter | undefined;

  constructor(private readonly recipients: NotificationRecipients) {}

  /** The recipients of each inbox audience of a claimed batch, by delivery id: a fixed number of queries per key and document. */
  async recipientsOf(deliveries: readonly ClaimedDelivery[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    for (const [apiKeyId, ofKey] of groupBy(deliveries, (delivery) => delivery.apiKeyId)) {
      const recipients = await this.recipients.ofEach(
        apiKeyId,
        ofKey.map((delivery) => delivery.event),
      );
      ofKey.forEach((delivery, i) =>
        found.set(
          delivery.id,
          recipients[i]!.filter((recipient) => recipient.channels.includes('inbox')).map((recipient) => recipient.userId),
        ),
      );
    }
    return found;
  }

  /** The attempt: its recipients, read with the batch, are the result; the entries are written with the outcome. */
  attempt(recipients: readonly string[] | undefined): AttemptResult {
    if (!this.writer) return { sent: false, status: 'cancelled', reason: 'No inbox is served by this instance.' };
    return { sent: true, verdict: 'succeeded', durationMs: 0, inbox: recipients ?? [] };
  }

  /** Writes the entries of the settled inbox audiences, in the settling unit of work. */
  async write(manager: EntityManager, settled: readonly DeliveryOutcome[]): Promise<void> {
    const entries = settled.filter((outcome) => outcome.inbox?.length);
    if (!entries.length || !this.writer) return;
    for (const [apiKeyId, ofKey] of groupBy(entries, (outcome) => outcome.delivery.apiKeyId)) {
      await this.writer.write(
        manager,
        apiKeyId,
        ofKey.map((outcome) => ({ event: outcome.delivery.event, recipients: outcome.inbox! })),
      );
    }
  }
}
