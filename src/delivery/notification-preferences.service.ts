import { Injectable } from '@nestjs/common';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { ConfigsService } from '../configs/configs.service.js';
import { Transactions } from '../database/transactions.js';
import { channelsOf, type Channel, type PreferenceValue, type SentPreferenceConfig } from './dto/preferences.dto.js';
import type { PreferenceEntryView } from './dto/preferences.response.js';
import { NotificationPreferenceStore, ORGANIZATION_LEVEL, type PreferenceRow } from './notification-preference-store.js';

/** A user's preference when nothing is stored (contract 6.4). */
export const DEFAULT_PREFERENCE: Record<Channel, PreferenceValue> = { inbox: 'ALL', email: 'MINE', chat: 'NONE' };

export interface PreferenceSetResult {
  success: true;
  userId: string;
  documentId: string | null;
  documentIds: string[];
  message: string;
}

/**
 * Notification preferences (contract 6.4): a channel not set inherits, document → organization
 * → default; gets and sets need the key's notification service on, the mail audience's reads do
 * not. `NotificationPreferenceStore` holds the rows.
 */
@Injectable()
export class NotificationPreferencesService {
  constructor(
    private readonly store: NotificationPreferenceStore,
    private readonly transactions: Transactions,
    private readonly configs: ConfigsService,
  ) {}

  /**
   * The user's effective preferences: the organization-level entry (metadata.documentId null)
   * when asked for, then one per document.
   */
  async get(
    principal: ApiKeyPrincipal,
    request: { organizationId: string; userId: string; documentIds?: string[]; withOrganization: boolean },
  ): Promise<PreferenceEntryView[]> {
    const { apiKeyId } = principal;
    await this.configs.requireNotificationService(apiKeyId);
    const documentIds = request.documentIds ?? [];
    const stored = await this.store.ofUser(apiKeyId, request.organizationId, request.userId, [ORGANIZATION_LEVEL, ...documentIds]);
    const organizationLevel = resolve(stored.get(ORGANIZATION_LEVEL), DEFAULT_PREFERENCE);
    const entry = (documentId: string | null, config: Record<Channel, PreferenceValue>): PreferenceEntryView => ({
      config,
      metadata: { organizationId: request.organizationId, apiKey: apiKeyId, documentId, userId: request.userId },
    });
    return [
      ...(request.withOrganization ? [entry(null, organizationLevel)] : []),
      ...documentIds.map((documentId) => entry(documentId, resolve(stored.get(documentId), organizationLevel))),
    ];
  }

  /**
   * Effective preferences of many users for one document (document, else organization, else
   * the default), in one query; the notification service switch does not apply (contract 6.4).
   */
  async effective(
    apiKeyId: string,
    organizationId: string,
    documentId: string,
    userIds: readonly string[],
  ): Promise<Map<string, Record<Channel, PreferenceValue>>> {
    return (await this.effectiveIn(apiKeyId, organizationId, new Map([[documentId, userIds]]))).get(documentId)!;
  }

  /** `effective` for several documents of one organization, each for its own users, in one query. */
  async effectiveIn(
    apiKeyId: string,
    organizationId: string,
    usersByDocument: ReadonlyMap<string, readonly string[]>,
  ): Promise<Map<string, Map<string, Record<Channel, PreferenceValue>>>> {
    const userIds = [...new Set([...usersByDocument.values()].flat())];
    const rows = userIds.length ? await this.store.ofUsers(apiKeyId, organizationId, [...usersByDocument.keys()], userIds) : [];
    const organizationLevel = new Map<string, PreferenceRow>();
    const documentLevel = new Map<string, PreferenceRow>();
    for (const row of rows)
      if (row.document_id === ORGANIZATION_LEVEL) organizationLevel.set(row.user_id, row);
      else documentLevel.set(`${row.document_id}\u0000${row.user_id}`, row);
    return new Map(
      [...usersByDocument].map(([documentId, users]) => [
        documentId,
        new Map(
          users.map((userId) => [
            userId,
            resolve(documentLevel.get(`${documentId}\u0000${userId}`), resolve(organizationLevel.get(userId), DEFAULT_PREFERENCE)),
          ]),
        ),
      ]),
    );
  }

  /** Sets the sent channels for every user on every document (or at organization level), atomically. */
  async set(
    principal: ApiKeyPrincipal,
    request: { organizationId: string; userIds: string[]; documentIds?: string[]; config: SentPreferenceConfig },
  ): Promise<Record<string, PreferenceSetResult>> {
    const { apiKeyId } = principal;
    await this.configs.requireNotificationService(apiKeyId);
    const targets = request.documentIds ?? [ORGANIZATION_LEVEL];
    await this.transactions.run((manager) =>
      this.store.put(manager, apiKeyId, request.organizationId, request.userIds, targets, channelsOf(request.config), Date.now()),
    );
    const documentIds = request.documentIds ?? [];
    return Object.fromEntries(
      request.userIds.map((userId) => [
        userId,
        { success: true, userId, documentId: documentIds[0] ?? null, documentIds, message: 'User config set successfully.' } as const,
      ]),
    );
  }
}

function resolve(row: PreferenceRow | undefined, inherited: Record<Channel, PreferenceValue>): Record<Channel, PreferenceValue> {
  return { inbox: row?.inbox ?? inherited.inbox, email: row?.email ?? inherited.email, chat: row?.chat ?? inherited.chat };
}
