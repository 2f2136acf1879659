import { Injectable } from '@nestjs/common';
import { groupBy } from '../common/collections.js';
import { AccessService } from '../access/access.service.js';
import { DirectoryUserStore } from '../directory/directory-user-store.js';
import { documentKey } from '../directory/document-store.js';
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

interface Profile {
  name: string | null;
  email: string | null;
}

interface DocumentReaders {
  audience: string[];
  preferences: Map<string, Record<Channel, PreferenceValue>>;
}

interface Readers {
  /** By organization and document (`documentKey`). */
  documents: Map<string, DocumentReaders>;
  profiles: Map<string, Profile>;
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
   * Recipients of several events, in order: the audiences and preferences are read once per
   * organization the events are in, for all their documents together, and the profiles once for
   * all of them (a claimed batch of inbox audiences on many documents is a few queries, not a
   * few per document).
   */
  async ofEach(apiKeyId: string, events: OutboxEvent[]): Promise<Recipient[][]> {
    const readers = await this.readers(
      apiKeyId,
      events.map((event) => ({ organizationId: event.organizationId, documentId: event.documentId })),
    );
    return events.map((event) => {
      const { audience, preferences } = readers.documents.get(documentKey(event.organizationId, event.documentId))!;
      const actor = event.actionUser?.userId;
      const involved = involvedUsers(event);
      return audience.flatMap((userId) => {
        if (userId === actor) return [];
        const preference = preferences.get(userId)!;
        const channels = CHANNELS.filter((channel) => preference[channel] === 'ALL' || (preference[channel] === 'MINE' && involved.has(userId)));
        if (!channels.length) return [];
        const profile = readers.profiles.get(userId);
        return [{ userId, name: profile?.name ?? null, email: profile?.email ?? null, channels }];
      });
    });
  }

  /** Who may see each document, with their effective preferences, and their profiles: a fixed number of queries per organization. */
  private async readers(apiKeyId: string, places: { organizationId: string; documentId: string }[]): Promise<Readers> {
    const documents = new Map<string, DocumentReaders>();
    for (const [organizationId, documentIds] of groupBy(
      places,
      (place) => place.organizationId,
      (place) => place.documentId,
    )) {
      const unique = [...new Set(documentIds)];
      const audiences = await this.access.documentAudiences(apiKeyId, organizationId, unique);
      const usersByDocument = new Map(unique.map((documentId) => [documentId, (audiences.get(documentId) ?? []).map((entry) => entry.userId)]));
      const preferences = await this.preferences.effectiveIn(apiKeyId, organizationId, usersByDocument);
      for (const [documentId, audience] of usersByDocument)
        documents.set(documentKey(organizationId, documentId), { audience, preferences: preferences.get(documentId)! });
    }
    const everyone = [...new Set([...documents.values()].flatMap((document) => document.audience))];
    const profiles = everyone.length ? await this.users.profiles(apiKeyId, everyone) : new Map<string, Profile>();
    return { documents, profiles };
  }
}
