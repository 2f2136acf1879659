import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { ConfigsService } from '../configs/configs.service.js';
import { Conditions, Sql } from '../database/sql.js';
import { DocumentMoves, type DocumentMove, type DocumentMoveObserver } from '../directory/document-moves.js';
import { Transactions } from '../database/transactions.js';
import { CHANNELS, channelsOf, type Channel, type PreferenceValue, type SentPreferenceConfig } from './dto/preferences.dto.js';
import { moveDocumentColumn } from '../database/document-bodies.js';

/** A user's preference when nothing is stored (contract 6.4). */
export const DEFAULT_PREFERENCE: Record<Channel, PreferenceValue> = { inbox: 'ALL', email: 'MINE', chat: 'NONE' };
/** Users per query when many users' preferences are read. */
const USERS_PER_QUERY = 1000;
/** `document_id` of the organization-level row. */
const ORGANIZATION_LEVEL = '';

export interface PreferenceEntry {
  config: Record<Channel, PreferenceValue>;
  metadata: { organizationId: string; apiKey: string; documentId: string | null; userId: string };
}

export interface PreferenceSetResult {
  success: true;
  userId: string;
  documentId: string | null;
  documentIds: string[];
  message: string;
}

type PreferenceRow = { document_id: string } & Record<Channel, PreferenceValue | null>;

/** A preference as stored: the channels set (null: inherited), for the user-data export. */
export interface StoredPreference {
  /** null: the organization-level entry. */
  documentId: string | null;
  inbox: PreferenceValue | null;
  email: PreferenceValue | null;
  chat: PreferenceValue | null;
  updatedAt: number;
}

/** Where a page of `preferencesOf` continues: the stored document id of its last entry. */
export type PreferenceCursor = string;

export function preferenceCursor(preference: StoredPreference): PreferenceCursor {
  return preference.documentId ?? ORGANIZATION_LEVEL;
}

/**
 * Notification preferences (contract 6.4), and the owner of `notification_preference`: stored
 * per user and document, or per user at organization level; a channel not set inherits,
 * document → organization → default. Plain SQL throughout: the mail audience reads many users'
 * at once, and a set is one batch upsert that keeps the channels not sent (`Sql.insert`).
 */
@Injectable()
export class NotificationPreferencesService implements DocumentMoveObserver, OnModuleInit {
  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
    private readonly configs: ConfigsService,
    private readonly documentMoves: DocumentMoves,
  ) {}

  onModuleInit(): void {
    this.documentMoves.observers.add(this);
  }

  /**
   * Users' preferences for a document follow it to its new id, in the moving transaction.
   * Preferences are kept by id whether a document exists or not, so a user may hold one for the
   * new id already: the document's own (the one moving) wins. Two statements.
   */
  async documentMoved(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void> {
    const scope = 'api_key_id = :apiKeyId AND organization_id = :organizationId';
    await this.sql.run(
      manager,
      `DELETE FROM notification_preference WHERE ${scope} AND document_id = :to
        AND user_id IN (SELECT user_id FROM notification_preference WHERE ${scope} AND document_id = :from)`,
      { apiKeyId, ...move },
    );
    await moveDocumentColumn(this.sql, manager, 'notification_preference', { apiKeyId, ...move });
  }

  /**
   * The user's effective preferences: the organization-level entry (metadata.documentId null)
   * when asked for, then one per document.
   */
  async get(
    principal: ApiKeyPrincipal,
    request: { organizationId: string; userId: string; documentIds?: string[]; withOrganization: boolean },
  ): Promise<PreferenceEntry[]> {
    const { apiKeyId } = principal;
    await this.configs.requireNotificationService(apiKeyId);
    const documentIds = request.documentIds ?? [];
    const rows = await this.sql.rows<PreferenceRow>(
      `SELECT document_id, inbox, email, chat FROM notification_preference
        WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND user_id = :userId AND document_id IN (:...documentIds)`,
      { apiKeyId, organizationId: request.organizationId, userId: request.userId, documentIds: [ORGANIZATION_LEVEL, ...documentIds] },
    );
    const stored = new Map(rows.map((row) => [row.document_id, row]));
    const organizationLevel = resolve(stored.get(ORGANIZATION_LEVEL), DEFAULT_PREFERENCE);
    const entry = (documentId: string | null, config: Record<Channel, PreferenceValue>): PreferenceEntry => ({
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
    const rows: (PreferenceRow & { user_id: string })[] = [];
    // In chunks: an audience can be larger than a statement's parameter limit.
    for (let start = 0; start < userIds.length; start += USERS_PER_QUERY) {
      rows.push(
        ...(await this.sql.rows<PreferenceRow & { user_id: string }>(
          `SELECT user_id, document_id, inbox, email, chat FROM notification_preference
            WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND document_id IN (:...documentIds) AND user_id IN (:...userIds)`,
          { apiKeyId, organizationId, documentIds: [ORGANIZATION_LEVEL, documentId], userIds: userIds.slice(start, start + USERS_PER_QUERY) },
        )),
      );
    }
    const organizationLevel = new Map<string, PreferenceRow>();
    const documentLevel = new Map<string, PreferenceRow>();
    for (const row of rows) (row.document_id === ORGANIZATION_LEVEL ? organizationLevel : documentLevel).set(row.user_id, row);
    return new Map(userIds.map((userId) => [userId, resolve(documentLevel.get(userId), resolve(organizationLevel.get(userId), DEFAULT_PREFERENCE))]));
  }

  /**
   * The user's stored preferences in the organization, for the user-data export: by document
   * (the organization-level entry first), after `after`, `limit` at most. One query.
   */
  async preferencesOf(
    apiKeyId: string,
    organizationId: string,
    userId: string,
    after: PreferenceCursor | undefined,
    limit: number,
  ): Promise<StoredPreference[]> {
    // Plain SQL: a keyset page (`Sql.rowsAfter`), numbers converted here.
    const rows = await this.sql.rowsAfter<PreferenceRow & { updated_at: number | string }>(
      'SELECT document_id, inbox, email, chat, updated_at FROM notification_preference WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND user_id = :userId',
      ['document_id'],
      { apiKeyId, organizationId, userId },
      after === undefined ? undefined : [after],
      limit,
    );
    return rows.map((row) => ({
      documentId: row.document_id === ORGANIZATION_LEVEL ? null : row.document_id,
      inbox: row.inbox,
      email: row.email,
      chat: row.chat,
      updatedAt: Number(row.updated_at),
    }));
  }

  /** Erases the users' preferences in the given organizations (null: all of the key's), in the erasing unit of work. One statement. */
  async forgetUsers(manager: EntityManager, apiKeyId: string, userIds: string[], organizationIds: string[] | null): Promise<void> {
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .among('user_id', userIds)
      .among('organization_id', organizationIds ?? undefined);
    await this.sql.run(manager, `DELETE FROM notification_preference WHERE ${where}`, where.parameters);
  }

  /** Sets the sent channels for every user on every document (or at organization level), atomically. */
  async set(
    principal: ApiKeyPrincipal,
    request: { organizationId: string; userIds: string[]; documentIds?: string[]; config: SentPreferenceConfig },
  ): Promise<Record<string, PreferenceSetResult>> {
    const { apiKeyId } = principal;
    await this.configs.requireNotificationService(apiKeyId);
    const targets = request.documentIds ?? [ORGANIZATION_LEVEL];
    const config = channelsOf(request.config);
    const sent = CHANNELS.filter((channel) => config[channel] !== undefined);
    const now = Date.now();
    const rows = request.userIds.flatMap((userId) =>
      targets.map((documentId) => [apiKeyId, request.organizationId, userId, documentId, ...CHANNELS.map((c) => config[c] ?? null), now]),
    );
    await this.transactions.run((manager) =>
      this.sql.insert(manager, 'notification_preference', ['api_key_id', 'organization_id', 'user_id', 'document_id', ...CHANNELS, 'updated_at'], rows, {
        target: ['api_key_id', 'organization_id', 'user_id', 'document_id'],
        // Channels not sent keep what they were (or keep inheriting).
        update: [...sent, 'updated_at'],
      }),
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
