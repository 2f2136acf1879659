import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, Not, type EntityManager, type Repository } from 'typeorm';
import { newSortableId } from '../common/ids.js';
import { REKEY_BATCH, type SecretsRekey } from '../common/secrets-rekey.js';
import { Sql } from '../database/sql.js';
import { AccountEntity } from './entities/account.entity.js';
import { LoginTokenEntity } from './entities/login-token.entity.js';
import { WorkspaceEntity, type WorkspacePlan } from './entities/workspace.entity.js';

/** A workspace owner: one per (lower-cased) e-mail address, so the owner id is stable across workspaces. */
export interface AccountRecord {
  id: string;
  email: string;
  createdAt: number;
}

/** A workspace as stored: its auth token only as a keyed hash and a ciphertext. */
export interface WorkspaceRecord {
  id: string;
  name: string;
  accountId: string;
  ownerName: string;
  ownerAvatar: string;
  authTokenHash: string;
  authTokenEnc: string;
  plan: WorkspacePlan;
  selfServeProductionKeys: boolean;
  createdAt: number;
  lastUpdated: number;
}

/** A login-link token as stored: its keyed hash, never the token. */
export interface LoginTokenRecord {
  tokenHash: string;
  email: string;
  expiresAt: number;
  usedAt: number | null;
  createdAt: number;
}

/** A console session as its holder sees it: whose it is and until when. */
export interface ConsoleSessionHolder {
  accountId: string;
  email: string;
  expiresAt: number;
}

/**
 * The owner of the workspace owners' tables: `account`, `workspace`, `login_token` (an
 * owner's sign-in links) and `console_session` (the console's signed-in browsers). Every statement on them is a method here, answering typed records,
 * never entities or rows. Each picks its tool and says why: the entity where TypeORM's
 * transformers (timestamps, booleans) do the work on rare operator and sign-in paths, plain SQL
 * (`Sql`) for the credential lookup every workspace request makes and for row locks.
 */
@Injectable()
export class WorkspaceStore {
  constructor(
    private readonly sql: Sql,
    @InjectRepository(WorkspaceEntity) private readonly workspaces: Repository<WorkspaceEntity>,
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
    @InjectRepository(LoginTokenEntity) private readonly loginTokens: Repository<LoginTokenEntity>,
  ) {}

  /**
   * The account of an address (lower-cased by the caller), created when missing, in the caller's
   * unit of work. Race-safe: a concurrent create for the same address inserts nothing and both
   * read one row. Entity: the insert's `orIgnore` is TypeORM's portable ON CONFLICT DO NOTHING.
   */
  async accountFor(manager: EntityManager, email: string, now: number): Promise<AccountRecord> {
    const existing = await manager.findOneBy(AccountEntity, { email });
    if (existing) return accountOf(existing);
    await manager
      .createQueryBuilder()
      .insert()
      .into(AccountEntity)
      .values({ id: newSortableId('usr_'), email, createdAt: now })
      .orIgnore()
      .execute();
    return accountOf(await manager.findOneByOrFail(AccountEntity, { email }));
  }

  /**
   * Locks the account's row until the caller's unit of work ends (its key is kept: rows referring
   * to it may still be added). Plain SQL: `Sql.lockRows` adds the dialect's lock clause, which
   * TypeORM's lock modes cannot give on the embedded database.
   */
  async lockAccount(manager: EntityManager, accountId: string): Promise<void> {
    await this.sql.lockRows(manager, 'SELECT id FROM account WHERE id = :id', { id: accountId }, { keysKept: true });
  }

  /** Accounts by id (missing ones are absent). Entity: workspace reads are an operator's, not a hot path. */
  async accountsById(ids: readonly string[]): Promise<AccountRecord[]> {
    if (!ids.length) return [];
    return (await this.accounts.findBy({ id: In([...ids]) })).map(accountOf);
  }

  /** Whether an account exists for the address (lower-cased by the caller). Entity: a sign-in check. */
  async hasAccount(email: string): Promise<boolean> {
    return this.accounts.existsBy({ email });
  }

  /** Workspaces of an account, counted in the caller's unit of work (which holds the account's lock). */
  async workspaceCount(manager: EntityManager, accountId: string): Promise<number> {
    return manager.count(WorkspaceEntity, { where: { accountId } });
  }

  /** Inserts a workspace in the caller's unit of work. Entity: its transformers write the timestamps and the flag. */
  async insertWorkspace(manager: EntityManager, workspace: WorkspaceRecord): Promise<void> {
    await manager.insert(WorkspaceEntity, workspace);
  }

  /** A workspace by id. Entity: an operator's read. */
  async workspace(workspaceId: string): Promise<WorkspaceRecord | undefined> {
    const workspace = await this.workspaces.findOneBy({ id: workspaceId });
    return workspace ? workspaceOf(workspace) : undefined;
  }

  /**
   * The workspace, its row locked until the caller's unit of work ends (key kept), so writes
   * that check it before acting take turns. Plain SQL for the lock (see `lockAccount`), then the
   * entity read in the same unit, whose transformers give the record's types.
   */
  async lockWorkspace(manager: EntityManager, workspaceId: string): Promise<WorkspaceRecord | undefined> {
    await this.sql.lockRows(manager, 'SELECT id FROM workspace WHERE id = :id', { id: workspaceId }, { keysKept: true });
    const workspace = await manager.findOneBy(WorkspaceEntity, { id: workspaceId });
    return workspace ? workspaceOf(workspace) : undefined;
  }

  /**
   * The newest `limit` workspaces, newest first; only those of the address (lower-cased by the
   * caller) when given. Entity: an operator's listing (admin CLI), not a hot path.
   */
  async newest(limit: number, email?: string): Promise<WorkspaceRecord[]> {
    let accountId: string | undefined;
    if (email !== undefined) {
      const account = await this.accounts.findOneBy({ email });
      if (!account) return [];
      accountId = account.id;
    }
    const workspaces = await this.workspaces.find({
      where: accountId === undefined ? {} : { accountId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
    return workspaces.map(workspaceOf);
  }

  /** Every workspace owned by an address (lower-cased by the caller), oldest first. Entity: sign-in and operator reads. */
  async ownedBy(email: string): Promise<WorkspaceRecord[]> {
    const account = await this.accounts.findOneBy({ email });
    if (!account) return [];
    return (await this.workspaces.find({ where: { accountId: account.id }, order: { createdAt: 'ASC', id: 'ASC' } })).map(workspaceOf);
  }

  /** Whether the address (lower-cased by the caller) owns at least one workspace. Entity: as `ownedBy`. */
  async ownsAny(email: string): Promise<boolean> {
    const account = await this.accounts.findOneBy({ email });
    return account !== null && (await this.workspaces.existsBy({ accountId: account.id }));
  }

  /**
   * Sets plan and self-serve production keys (those given; an undefined one keeps its value) in
   * the caller's unit of work, the row locked first (see `lockWorkspace`), so what it answers is
   * the workspace as it now is; undefined when missing. Entity: an operator's write.
   */
  async setPlan(
    manager: EntityManager,
    workspaceId: string,
    changes: { plan?: WorkspacePlan; selfServeProductionKeys?: boolean },
  ): Promise<WorkspaceRecord | undefined> {
    const workspace = await this.lockWorkspace(manager, workspaceId);
    if (!workspace) return undefined;
    const changed = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as typeof changes;
    await manager.update(WorkspaceEntity, { id: workspaceId }, { ...changed, lastUpdated: Date.now() });
    return { ...workspace, ...changed };
  }

  /** The keyed hash of the workspace's auth token. Plain SQL: every workspace-authenticated request runs it, one indexed lookup. */
  async authTokenHash(workspaceId: string): Promise<string | undefined> {
    const [row] = await this.sql.rows<{ auth_token_hash: string }>('SELECT auth_token_hash FROM workspace WHERE id = :workspaceId', { workspaceId });
    return row?.auth_token_hash;
  }

  /** Stores a login-link token in the caller's unit of work. Entity: its transformers write the timestamps. */
  async addLoginToken(manager: EntityManager, token: LoginTokenRecord): Promise<void> {
    await manager.insert(LoginTokenEntity, token);
  }

  /**
   * Marks an unused, unexpired token used, in the caller's unit of work, and answers its address;
   * undefined when no such token could be used. One conditional update, so two concurrent uses
   * cannot both win. Query builder: one conditional UPDATE, whose affected count says whether this use won.
   */
  async useLoginToken(manager: EntityManager, tokenHash: string, now: number): Promise<string | undefined> {
    const result = await manager
      .createQueryBuilder()
      .update(LoginTokenEntity)
      .set({ usedAt: now })
      .where('token_hash = :tokenHash AND used_at IS NULL AND expires_at > :now', { tokenHash, now })
      .execute();
    if (!result.affected) return undefined;
    return (await manager.findOneByOrFail(LoginTokenEntity, { tokenHash })).email;
  }

  /** The account of an address (lower-cased by the caller), when it has one. Entity: a sign-in read. */
  async accountOf(email: string): Promise<AccountRecord | undefined> {
    const account = await this.accounts.findOneBy({ email });
    return account ? accountOf(account) : undefined;
  }

  /**
   * Stores a console session (by the keyed hash of its cookie value) in the caller's unit of
   * work, and drops the expired ones, so the table holds only live sessions. Plain SQL, as every
   * statement on the table: it has no entity, and the lookup runs on each console request.
   */
  async addConsoleSession(manager: EntityManager, session: { sessionHash: string; accountId: string; createdAt: number; expiresAt: number }): Promise<void> {
    await this.sql.run(manager, 'DELETE FROM console_session WHERE expires_at <= :now', { now: session.createdAt });
    await this.sql.run(
      manager,
      'INSERT INTO console_session (session_hash, account_id, created_at, expires_at) VALUES (:sessionHash, :accountId, :createdAt, :expiresAt)',
      session,
    );
  }

  /** The holder of a live console session, by its hash; undefined when unknown, signed out or expired. One indexed lookup. */
  async consoleSessionHolder(sessionHash: string, now: number): Promise<ConsoleSessionHolder | undefined> {
    const [row] = await this.sql.rows<{ account_id: string; email: string; expires_at: number | string }>(
      `SELECT s.account_id, a.email, s.expires_at FROM console_session s JOIN account a ON a.id = s.account_id
        WHERE s.session_hash = :sessionHash AND s.expires_at > :now`,
      { sessionHash, now },
    );
    return row ? { accountId: row.account_id, email: row.email, expiresAt: Number(row.expires_at) } : undefined;
  }

  /** Ends a console session (sign-out) in the caller's unit of work; whether it was live. */
  async removeConsoleSession(manager: EntityManager, sessionHash: string): Promise<boolean> {
    const removed = await this.sql.run<{ session_hash: string }>(
      manager,
      'DELETE FROM console_session WHERE session_hash = :sessionHash RETURNING session_hash',
      {
        sessionHash,
      },
    );
    return removed.length > 0;
  }

  /** Whether the account owns the workspace. Plain SQL: every console request on a workspace runs it. */
  async isOwnedBy(workspaceId: string, accountId: string): Promise<boolean> {
    const rows = await this.sql.rows<{ id: string }>('SELECT id FROM workspace WHERE id = :workspaceId AND account_id = :accountId', {
      workspaceId,
      accountId,
    });
    return rows.length > 0;
  }

  /**
   * Master key rotation (see `SecretsRekey`): each workspace's auth token sealed under the new
   * key and its lookup hash recomputed; console sessions and unused login links, stored only as
   * hashes of what the browser or the mail holds, cannot be rehashed, so they end (used links
   * stay: they only tell that the address was verified). Plain SQL: batched keyset reads and
   * one update per batch, in the rotation's unit of work.
   */
  async rekeySecrets(rekey: SecretsRekey): Promise<void> {
    const { manager } = rekey;
    const count = async (sql: string) => Number((await this.sql.run<{ n: number | string }>(manager, sql, {}))[0]!.n);
    await rekey.inBatches(
      'workspace',
      await count('SELECT COUNT(*) AS n FROM workspace'),
      (after) =>
        this.sql.run<{ id: string; auth_token_enc: string }>(
          manager,
          `SELECT id, auth_token_enc FROM workspace${after === null ? '' : ' WHERE id > :after'} ORDER BY id LIMIT ${REKEY_BATCH}`,
          after === null ? {} : { after },
        ),
      async (rows) => {
        const rewritten = rows.map((row) => {
          const token = rekey.open(row.auth_token_enc, { table: 'workspace', column: 'auth_token_enc', row: row.id });
          return [row.id, rekey.seal(token), rekey.hash(token, { table: 'workspace', column: 'auth_token_hash' })];
        });
        if (!rekey.writing) return;
        await this.sql.updateRows(
          manager,
          'workspace',
          {
            match: [{ name: 'id', type: 'varchar' }],
            set: [
              { name: 'auth_token_enc', type: 'text' },
              { name: 'auth_token_hash', type: 'varchar' },
            ],
          },
          rewritten,
        );
      },
    );
    const sessions = await count('SELECT COUNT(*) AS n FROM console_session');
    const links = await count('SELECT COUNT(*) AS n FROM login_token WHERE used_at IS NULL');
    if (rekey.writing) {
      await this.sql.run(manager, 'DELETE FROM console_session', {});
      await this.sql.run(manager, 'DELETE FROM login_token WHERE used_at IS NULL', {});
    }
    rekey.ended('console_session', sessions, 'console sessions (their owners sign in again)');
    rekey.ended('login_token', links, 'unused login links (ask for a new one)');
  }

  /** Whether a login link of the address (lower-cased by the caller) was ever used. Entity: a sign-in check. */
  async hasUsedLoginToken(email: string): Promise<boolean> {
    return this.loginTokens.existsBy({ email, usedAt: Not(IsNull()) });
  }
}

function accountOf(account: AccountEntity): AccountRecord {
  return { id: account.id, email: account.email, createdAt: account.createdAt };
}

function workspaceOf(workspace: WorkspaceEntity): WorkspaceRecord {
  return {
    id: workspace.id,
    name: workspace.name,
    accountId: workspace.accountId,
    ownerName: workspace.ownerName,
    ownerAvatar: workspace.ownerAvatar,
    authTokenHash: workspace.authTokenHash,
    authTokenEnc: workspace.authTokenEnc,
    plan: workspace.plan,
    selfServeProductionKeys: workspace.selfServeProductionKeys,
    createdAt: workspace.createdAt,
    lastUpdated: workspace.lastUpdated,
  };
}
