import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { chunksOf } from '../common/collections.js';
import { moveDocumentColumn } from '../database/document-bodies.js';
import { Conditions, Sql } from '../database/sql.js';
import { DocumentMoves, type DocumentMove, type DocumentMoveObserver } from '../directory/document-moves.js';
import { CHANNELS, type Channel, type PreferenceValue } from './dto/preferences.dto.js';

/** `document_id` of the organization-level row. */
export const ORGANIZATION_LEVEL = '';
/** Users per query when many users' preferences are read. */
const USERS_PER_QUERY = 1000;

/** A stored row's channels (null: inherited), with its document (`ORGANIZATION_LEVEL` for the organization's). */
export type PreferenceRow = { document_id: string } & Record<Channel, PreferenceValue | null>;

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
 * Owner of `notification_preference`: per user and document, or per user at organization level
 * (`ORGANIZATION_LEVEL`), each channel set or null. Plain SQL throughout: the mail audience reads
 * many users' at once, and a set is one batch upsert that keeps the channels not sent
 * (`Sql.insert`). Preferences follow a migrated document (`DocumentMoves`).
 */
@Injectable()
export class NotificationPreferenceStore implements DocumentMoveObserver, OnModuleInit {
  constructor(
    private readonly sql: Sql,
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

  /** One user's rows for the documents of `documentIds` (`ORGANIZATION_LEVEL` among them for the organization's), by document. */
  async ofUser(apiKeyId: string, organizationId: string, userId: string, documentIds: readonly string[]): Promise<Map<string, PreferenceRow>> {
    const rows = await this.sql.rows<PreferenceRow>(
      `SELECT document_id, inbox, email, chat FROM notification_preference
        WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND user_id = :userId AND document_id IN (:...documentIds)`,
      { apiKeyId, organizationId, userId, documentIds: [...documentIds] },
    );
    return new Map(rows.map((row) => [row.document_id, row]));
  }

  /** Many users' rows for some documents and for the organization, in chunks (an audience can pass a statement's parameter limit). */
  async ofUsers(
    apiKeyId: string,
    organizationId: string,
    documentIds: readonly string[],
    userIds: readonly string[],
  ): Promise<(PreferenceRow & { user_id: string })[]> {
    const rows: (PreferenceRow & { user_id: string })[] = [];
    for (const chunk of chunksOf(userIds, USERS_PER_QUERY)) {
      rows.push(
        ...(await this.sql.rows<PreferenceRow & { user_id: string }>(
          `SELECT user_id, document_id, inbox, email, chat FROM notification_preference
            WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND document_id IN (:...documentIds) AND user_id IN (:...userIds)`,
          { apiKeyId, organizationId, documentIds: [ORGANIZATION_LEVEL, ...documentIds], userIds: chunk },
        )),
      );
    }
    return rows;
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

  /**
   * Sets `config`'s channels for every user on every target (a document id, or
   * `ORGANIZATION_LEVEL`) in one upsert: the channels not in `config` keep what they were (or
   * keep inheriting).
   */
  async put(
    manager: EntityManager,
    apiKeyId: string,
    organizationId: string,
    userIds: readonly string[],
    targets: readonly string[],
    config: Partial<Record<Channel, PreferenceValue>>,
    at: number,
  ): Promise<void> {
    const sent = CHANNELS.filter((channel) => config[channel] !== undefined);
    const rows = userIds.flatMap((userId) =>
      targets.map((documentId) => [apiKeyId, organizationId, userId, documentId, ...CHANNELS.map((c) => config[c] ?? null), at]),
    );
    await this.sql.insert(manager, 'notification_preference', ['api_key_id', 'organization_id', 'user_id', 'document_id', ...CHANNELS, 'updated_at'], rows, {
      target: ['api_key_id', 'organization_id', 'user_id', 'document_id'],
      update: [...sent, 'updated_at'],
    });
  }
}
