import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { UsersService } from '../directory/users.service.js';
import { CHANNELS, type Channel } from './dto/preferences.dto.js';
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
    private readonly users: UsersService,
  ) {}

  async of(apiKeyId: string, event: OutboxEvent): Promise<Recipient[]> {
    const actor = event.actionUser?.userId;
    const audience = (await this.access.documentAudience(apiKeyId, event.organizationId, event.documentId)).map((entry) => entry.userId).filter((userId) => userId !== actor);
    if (!audience.length) return [];
    const [preferences, profiles] = await Promise.all([this.preferences.effective(apiKeyId, event.organizationId, event.documentId, audience), this.users.profiles(apiKeyId, audience)]);
    const involved = involvedUsers(event);
    return audience.flatMap((userId) => {
      const preference = preferences.get(userId)!;
      const channels = CHANNELS.filter((channel) => preference[channel] === 'ALL' || (preference[channel] === 'MINE' && involved.has(userId)));
      if (!channels.length) return [];
      const profile = profiles.get(userId);
      return [{ userId, name: profile?.name ?? null, email: profile?.email ?? null, channels }];
    });
  }
}
