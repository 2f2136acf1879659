import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DocumentMoves, type DocumentMove, type DocumentMoveObserver } from '../directory/document-moves.js';
import type { EntityManager } from 'typeorm';
import { Conditions, Sql } from '../database/sql.js';
import { moveDocumentColumn } from '../database/document-bodies.js';

/** The holder of the entries `presence/add|update` put; every other holder is a live instance. */
export const SERVER_HOLDER = 'server';

/** A document's place. */
export interface DocumentPlace {
  organizationId: string;
  documentId: string;
}

/** What an entry says of its user; a field left out of `presence/update` is undefined. */
export interface PresenceFields {
  userId: string;
  name?: string;
  email?: string;
  status?: string;
}

/** A row as read: one user, one holder. */
export interface PresenceRow {
  userId: string;
  holder: string;
  name: string | null;
  email: string | null;
  status: string;
  /** ms. */
  expiresAt: number;
}

type Row = { user_id: string; holder: string; name: string | null; email: string | null; status: string; expires_at: number | string };

const DOCUMENT = 'api_key_id = :apiKeyId AND organization_id = :organizationId AND document_id = :documentId';

/**
 * The owner of `live_presence`: who is present in which document, as server entries and as
 * live instances' connected users. Writes run in the caller's unit of work; reads skip rows
 * past their expiry, which `sweep` deletes later.
 */
@Injectable()
export class PresenceStore implements DocumentMoveObserver, OnModuleInit {
  constructor(
    private readonly sql: Sql,
    private readonly documentMoves: DocumentMoves,
  ) {}

  onModuleInit(): void {
    this.documentMoves.observers.add(this);
  }

  /** A document's presence follows it to its new id, in the moving transaction. One statement; entries of live connections to the old id expire as usual (the connections stay on the id they joined). */
  async documentMoved(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void> {
    await moveDocumentColumn(this.sql, manager, 'live_presence', { apiKeyId, ...move });
  }

  /**
   * Puts entries of one holder into a document's presence, until `expiresAt`. `merge`: a field
   * left undefined keeps the value of an entry that has not expired (`presence/update`); else
   * the entry is replaced, an undefined status being `online`.
   */
  async put(
    manager: EntityManager,
    apiKeyId: string,
    place: DocumentPlace,
    holder: string,
    entries: PresenceFields[],
    expiresAt: number,
    options: { merge: boolean },
  ): Promise<void> {
    const now = Date.now();
    const kept = (column: string) =>
      `CASE WHEN live_presence.expires_at > :now THEN COALESCE(excluded.${column}, live_presence.${column}) ELSE excluded.${column} END`;
    const update = options.merge
      ? `name = ${kept('name')}, email = ${kept('email')}, status = COALESCE(:status, CASE WHEN live_presence.expires_at > :now THEN live_presence.status ELSE 'online' END), expires_at = excluded.expires_at`
      : 'name = excluded.name, email = excluded.email, status = excluded.status, expires_at = excluded.expires_at';
    for (const entry of entries) {
      await this.sql.run(
        manager,
        `INSERT INTO live_presence (api_key_id, organization_id, document_id, user_id, holder, name, email, status, expires_at)
         VALUES (:apiKeyId, :organizationId, :documentId, :userId, :holder, :name, :email, COALESCE(:status, 'online'), :expiresAt)
         ON CONFLICT (api_key_id, organization_id, document_id, user_id, holder) DO UPDATE SET ${update}`,
        {
          apiKeyId,
          ...place,
          userId: entry.userId,
          holder,
          name: entry.name ?? null,
          email: entry.email ?? null,
          status: entry.status ?? null,
          expiresAt,
          now,
        },
      );
    }
  }

  /** Takes users' entries of one holder out of a document's presence. */
  async remove(manager: EntityManager, apiKeyId: string, place: DocumentPlace, holder: string, userIds: string[]): Promise<void> {
    await this.sql.run(manager, `DELETE FROM live_presence WHERE ${DOCUMENT} AND holder = :holder AND user_id IN (:...userIds)`, {
      apiKeyId,
      ...place,
      holder,
      userIds,
    });
  }

  /** Moves the expiry of every entry of a holder (a live instance's, while its clients stay). */
  async extend(manager: EntityManager, holder: string, expiresAt: number): Promise<void> {
    await this.sql.run(manager, 'UPDATE live_presence SET expires_at = :expiresAt WHERE holder = :holder', { holder, expiresAt });
  }

  /** Deletes every entry of a holder (a live instance stopping). */
  async removeHolder(manager: EntityManager, holder: string): Promise<void> {
    await this.sql.run(manager, 'DELETE FROM live_presence WHERE holder = :holder', { holder });
  }

  /** The document's entries that have not expired, by user. */
  async active(apiKeyId: string, place: DocumentPlace): Promise<PresenceRow[]> {
    const rows = await this.sql.rows<Row>(
      `SELECT user_id, holder, name, email, status, expires_at FROM live_presence WHERE ${DOCUMENT} AND expires_at > :now ORDER BY user_id, holder`,
      { apiKeyId, ...place, now: Date.now() },
    );
    return rows.map((row) => ({
      userId: row.user_id,
      holder: row.holder,
      name: row.name,
      email: row.email,
      status: row.status,
      expiresAt: Number(row.expires_at),
    }));
  }

  /** Deletes entries that expired. */
  async sweep(manager: EntityManager): Promise<void> {
    await this.sql.run(manager, 'DELETE FROM live_presence WHERE expires_at <= :now', { now: Date.now() });
  }

  /** Takes the users out of every document's presence, in the given organizations (null: all of the key's): erasure. */
  async forgetUsers(manager: EntityManager, apiKeyId: string, userIds: string[], organizationIds: string[] | null): Promise<void> {
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .among('user_id', userIds)
      .among('organization_id', organizationIds ?? undefined);
    await this.sql.run(manager, `DELETE FROM live_presence WHERE ${where}`, where.parameters);
  }
}
