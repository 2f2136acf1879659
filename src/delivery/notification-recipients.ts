import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { DirectoryUserStore } from '../directory/directory-user-store.js';
import { CHANNELS, type Channel, type PreferenceValue } from './dto/preferences.dto.js';
import { involvedUsers } from './involved-users.js';
import { NotificationPreferencesService } from './notification-preferences.service.js';
import type { OutboxEvent } from './outbox-event.js';

/** A user to notify of an event, and through which channels their preferences select it. */
export interface Recipient {
  userId: string;
  name: string | null;
  email: string | null;
  channels: Channel[];
}

interface DocumentReaders {
  audience: string[];
  preferences: Map<string, Record<Channel, PreferenceValue>>;
  profiles: Map<string, { name: string | null; email: string | null }>;
}

/**
 * Who hears of an event (contract 6.4): the users who may see its document, each through the
 * channels whose effective preference selects it (`ALL` always, `MINE` when the event involves
 * them, `NONE` never); never the acting user. A fixed number of queries whatever the audience.
 */
@Injectable()
export class NotificationRecipients {
  constructor(
    private readonly access: AccessService,
    private readonly preferences: NotificationPreferencesService,
    private readonly users: DirectoryUserStore,
  ) {}

  async of(apiKeyId: string, event: OutboxEvent): Promise<Recipient[]> {
    return (await this.ofEach(apiKeyId, [event]))[0]!;
  }

  /**
   * Recipients of several events, in order: the audience, preferences and profiles are read once
   * per document the events are on (a comment write's events share one), not once per event.
   */
  async ofEach(apiKeyId: string, events: OutboxEvent[]): Promise<Recipient[][]> {
    const documents = new Map<string, Promise<DocumentReaders>>();
    const readersOf = (event: OutboxEvent) => {
      const key = `${event.organizationId}\u0000${event.documentId}`;
      if (!documents.has(key)) documents.set(key, this.readers(apiKeyId, event.organizationId, event.documentId));
      return documents.get(key)!;
    };
    return Promise.all(
      events.map(async (event) => {
        const { audience, preferences, profiles } = await readersOf(event);
        const actor = event.actionUser?.userId;
        const involved = involvedUsers(event);
        return audience.flatMap((userId) => {
          if (userId === actor) return [];
          const preference = preferences.get(userId)!;
          const channels = CHANNELS.filter((channel) => preference[channel] === 'ALL' || (preference[channel] === 'MINE' && involved.has(userId)));
          if (!channels.length) return [];
          const profile = profiles.get(userId);
          return [{ userId, name: profile?.name ?? null, email: profile?.email ?? null, channels }];
        });
      }),
    );
  }

  /** Who may see a document, with their effective preferences and profiles: a fixed number of queries. */
  private async readers(apiKeyId: string, organizationId: string, documentId: string): Promise<DocumentReaders> {
    const audience = (await this.access.documentAudience(apiKeyId, organizationId, documentId)).map((entry) => entry.userId);
    if (!audience.length) return { audience, preferences: new Map(), profiles: new Map() };
    const [preferences, profiles] = await Promise.all([
      this.preferences.effective(apiKeyId, organizationId, documentId, audience),
      this.users.profiles(apiKeyId, audience),
    ]);
    return { audience, preferences, profiles };
  }
}
