import { Injectable } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import { chunksOf } from '../common/collections.js';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { DirectoryUserEntity } from './entities/directory-user.entity.js';

/** A user's stored details (users add's fields and the metadata kept beside them), times in ms. */
export interface UserDetails {
  name: string | null;
  email: string | null;
  initial: string | null;
  metadata: Record<string, unknown>;
  createdAt: number;
  lastUpdated: number;
}

/** A user row without its key (the caller's scope). */
export type DirectoryUser = UserDetails & { id: string };

/**
 * Owner of `directory_user`: the key's users' details (not their memberships, which are grants).
 * Entity for the locked reads and upserts of users add and update; plain SQL for the profile
 * reads every users get page and mail batch makes (three text columns, nothing to convert) and
 * for the erasure's delete (one statement whatever the numbers).
 */
@Injectable()
export class DirectoryUserStore {
  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
  ) {}

  /** Names and e-mail addresses of known users, by id (users never added are absent). */
  async profiles(apiKeyId: string, userIds: readonly string[]): Promise<Map<string, { name: string | null; email: string | null }>> {
    const profiles = new Map<string, { name: string | null; email: string | null }>();
    // In chunks of 1,000: a list can be longer than a statement's parameter limit.
    for (const chunk of chunksOf(userIds, 1000)) {
      const rows = await this.sql.rows<{ id: string; name: string | null; email: string | null }>(
        'SELECT id, name, email FROM directory_user WHERE api_key_id = :apiKeyId AND id IN (:...userIds)',
        { apiKeyId, userIds: chunk },
      );
      for (const row of rows) profiles.set(row.id, { name: row.name, email: row.email });
    }
    return profiles;
  }

  /** The user's stored details under the key, for the user-data export; null when never added. One query. */
  async profileOf(apiKeyId: string, userId: string): Promise<UserDetails | null> {
    // Plain SQL: one row by key, numbers converted here.
    const [row] = await this.sql.rows<{
      name: string | null;
      email: string | null;
      initial: string | null;
      metadata: string;
      created_at: number | string;
      last_updated: number | string;
    }>('SELECT name, email, initial, metadata, created_at, last_updated FROM directory_user WHERE api_key_id = :apiKeyId AND id = :userId', {
      apiKeyId,
      userId,
    });
    if (!row) return null;
    return {
      name: row.name,
      email: row.email,
      initial: row.initial,
      metadata: JSON.parse(row.metadata) as Record<string, unknown>,
      createdAt: Number(row.created_at),
      lastUpdated: Number(row.last_updated),
    };
  }

  /** The users of `ids` that exist, locked until the transaction ends. */
  async lockMany(manager: EntityManager, apiKeyId: string, ids: string[]): Promise<Map<string, DirectoryUser>> {
    const rows = await manager.find(DirectoryUserEntity, { where: { apiKeyId, id: In(ids) }, ...this.transactions.rowLock });
    return new Map(rows.map(({ apiKeyId: _key, ...user }) => [user.id, user]));
  }

  /** Writes whole users: new ones added, existing ones replaced but for their creation time. */
  async put(manager: EntityManager, apiKeyId: string, users: DirectoryUser[]): Promise<void> {
    if (!users.length) return;
    // TypeORM's partial-entity type cannot follow JSON columns typed as records.
    await manager
      .createQueryBuilder()
      .insert()
      .into(DirectoryUserEntity)
      .values(users.map((user) => ({ ...user, apiKeyId })) as never[])
      .orUpdate(['name', 'email', 'initial', 'metadata', 'last_updated'], ['api_key_id', 'id'])
      .execute();
  }

  /** Deletes the users' details (user-data erasure), in the erasing unit of work. */
  async delete(manager: EntityManager, apiKeyId: string, userIds: string[]): Promise<void> {
    if (userIds.length) await this.sql.run(manager, 'DELETE FROM directory_user WHERE api_key_id = :apiKeyId AND id IN (:...userIds)', { apiKeyId, userIds });
  }
}
