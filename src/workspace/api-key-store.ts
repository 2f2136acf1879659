import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, type EntityManager, type Repository } from 'typeorm';
import { REKEY_BATCH, type SecretsRekey } from '../common/secrets-rekey.js';
import { Sql, type Parameters } from '../database/sql.js';
import { currentUnit, type UnitRun } from '../database/unit-of-work.js';
import { ApiKeyAuthTokenEntity } from './entities/api-key-auth-token.entity.js';
import { ApiKeyEntity, type ApiKeyType } from './entities/api-key.entity.js';
import type { WorkspacePlan } from './entities/workspace.entity.js';
import {
  defaultKeySettings,
  neverConfiguredEmail,
  neverConfiguredNotification,
  neverConfiguredWebhook,
  type KeyConfigs,
  type KeySettings,
  type StoredAdvancedWebhookConfig,
  type StoredEmailConfig,
  type StoredNotificationConfig,
  type StoredWebhookConfig,
} from './key-configs.js';

/** A key as its workspace lists it. */
export interface ApiKeySummary {
  id: string;
  workspaceId: string;
  name: string;
  type: ApiKeyType;
  createdAt: number;
}

/** A key as an operator sees it (admin CLI): who owns it, where and since when; no configs, no tokens. */
export interface ApiKeyRecord {
  id: string;
  workspaceId: string;
  name: string;
  type: ApiKeyType;
  ownerEmail: string;
  persistenceDbRegion: string | null;
  realtimeDbRegion: string | null;
  createdAt: number;
  lastUpdated: number;
  /** When an operator revoked it; null while it is live. */
  revokedAt: number | null;
}

/** A key as it is created. */
export interface NewApiKey {
  id: string;
  workspaceId: string;
  name: string;
  type: ApiKeyType;
  ownerEmail: string;
  persistenceDbRegion: string | null;
  realtimeDbRegion: string | null;
  configs: KeyConfigs;
  settings: KeySettings;
  createdAt: number;
}

/** Who owns a key and on which plan (its workspace's), with its settings: upstream's apikeyconfig. */
export interface KeyProfile {
  ownerEmail: string;
  plan: WorkspacePlan;
  settings: KeySettings;
}

/** The key an auth token belongs to, found by the token's keyed hash. */
export interface TokenHolder {
  /** As stored, for the caller's constant-time comparison. */
  tokenHash: string;
  apiKeyId: string;
  workspaceId: string;
}

/** An auth token of a key as stored: its keyed hash and its ciphertext, never the token. */
export interface StoredAuthToken {
  id: string;
  apiKeyId: string;
  name: string;
  tokenHash: string;
  tokenEnc: string;
  domains: string[];
  createdAt: number;
}

type ConfigColumns = { email_config: string; webhook_config: string; notification_config: string; advanced_webhook_config: string | null };
const SELECT_CONFIGS = 'SELECT email_config, webhook_config, notification_config, advanced_webhook_config FROM api_key WHERE id = :apiKeyId';
const SELECT_SETTINGS = 'SELECT settings FROM api_key WHERE id = :apiKeyId';

type KeyRow = ConfigColumns & { id: string; settings: string };
/** Settings and delivery configs of keys together: what a unit of work keeps (see `keyRowsInUnit`). */
const SELECT_KEY_ROWS =
  'SELECT id, settings, email_config, webhook_config, notification_config, advanced_webhook_config FROM api_key WHERE id IN (:...apiKeyIds)';

/**
 * Key rows a run of a unit of work has read (null: no such key). A unit that records events
 * reads its key's settings (activity write) and then its delivery configs (event routing): two
 * round trips on PostgreSQL, on every notifying comment add. The first read now takes both, and
 * the second finds it here. Kept by the run (`UnitRun`: not by manager, which later units on the
 * same connection share), so it ends with the run, and dropped by every lock or write of a key's
 * row in it.
 */
const unitKeyRows = new WeakMap<UnitRun, Map<string, KeyRow | null>>();

/**
 * The one owner of the `api_key` table and of its auth tokens (`api_key_auth_token`, rows that
 * exist only under their key): every read and write of them is a method here, and answers typed
 * records, the JSON columns parsed once, over their defaults. Each statement picks its tool and
 * says why: plain SQL (`Sql`) for lookups on hot paths and for locked reads, the entity where
 * TypeORM's column transformers (JSON, timestamps) do the work on a rare write.
 *
 * A revoked key (`revoked_at` set, by `revoke`) keeps its row and its data, but is gone for
 * every caller: the credential lookups, the workspace's listings and checks and the key's
 * profile leave it out, as they would an unknown key. Only the operator's reads (`record`,
 * `newest`) and the key-scoped reads of a caller already let in (settings, configs) see it.
 */
@Injectable()
export class ApiKeyStore {
  constructor(
    private readonly sql: Sql,
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @InjectRepository(ApiKeyAuthTokenEntity) private readonly tokens: Repository<ApiKeyAuthTokenEntity>,
  ) {}

  /**
   * The key holding an auth token of this hash, if the token is one of `apiKeyId`'s. Plain SQL:
   * every authenticated request runs it, one indexed lookup joining the token to its key.
   */
  async tokenHolder(apiKeyId: string, tokenHash: string): Promise<TokenHolder | undefined> {
    const [row] = await this.sql.rows<{ token_hash: string; api_key_id: string; workspace_id: string }>(
      `SELECT t.token_hash AS token_hash, k.id AS api_key_id, k.workspace_id AS workspace_id
         FROM api_key_auth_token t INNER JOIN api_key k ON k.id = t.api_key_id
        WHERE t.token_hash = :hash AND t.api_key_id = :apiKey AND k.revoked_at IS NULL`,
      { hash: tokenHash, apiKey: apiKeyId },
    );
    return row && { tokenHash: row.token_hash, apiKeyId: row.api_key_id, workspaceId: row.workspace_id };
  }

  /** The workspace of a key, when the key exists (and is not revoked). Plain SQL: every console request on a key runs it, one indexed lookup. */
  async workspaceOfKey(apiKeyId: string): Promise<string | undefined> {
    const [row] = await this.sql.rows<{ workspace_id: string }>('SELECT workspace_id FROM api_key WHERE id = :apiKeyId AND revoked_at IS NULL', {
      apiKeyId,
    });
    return row?.workspace_id;
  }

  /** Stores an auth token in the caller's unit of work. Entity: its `domains` are a JSON column, and tokens are issued rarely. */
  async addToken(manager: EntityManager, token: StoredAuthToken): Promise<void> {
    await manager.insert(ApiKeyAuthTokenEntity, token);
  }

  /** A key's auth tokens, oldest first. Entity: an operator's listing, not a hot path. */
  async tokensOf(apiKeyId: string): Promise<StoredAuthToken[]> {
    const tokens = await this.tokens.find({ where: { apiKeyId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return tokens.map((t) => ({
      id: t.id,
      apiKeyId: t.apiKeyId,
      name: t.name,
      tokenHash: t.tokenHash,
      tokenEnc: t.tokenEnc,
      domains: t.domains,
      createdAt: t.createdAt,
    }));
  }

  /** Deletes every auth token of a key in the caller's unit of work: they stop working when it commits. */
  async deleteTokens(manager: EntityManager, apiKeyId: string): Promise<void> {
    await manager.delete(ApiKeyAuthTokenEntity, { apiKeyId });
  }

  /** Inserts a key in the caller's unit of work. Entity: its transformers write the JSON and timestamp columns. */
  async insert(manager: EntityManager, key: NewApiKey): Promise<void> {
    this.forgetKeyRows();
    const { configs, ...fields } = key;
    await manager.insert(ApiKeyEntity, {
      ...fields,
      emailConfig: configs.email,
      webhookConfig: configs.webhook,
      notificationConfig: configs.notification,
      advancedWebhookConfig: configs.advanced,
      lastUpdated: key.createdAt,
    });
  }

  /** Live production keys of a workspace (a revoked one frees its place), counted in the caller's unit of work (which holds the workspace's lock). */
  async productionKeyCount(manager: EntityManager, workspaceId: string): Promise<number> {
    return manager.count(ApiKeyEntity, { where: { workspaceId, type: 'production', revokedAt: IsNull() } });
  }

  /**
   * Revokes a key in the caller's unit of work: marks it revoked and deletes its auth tokens, the
   * row locked first so two revokes take turns (a token a concurrent reset still adds is never
   * accepted: `tokenHolder` looks at live keys only). Answers when the key was
   * revoked (now, or earlier when it already was), undefined when there is no such key. Plain SQL
   * for the lock (`Sql.lockRows`), then the entity's update and delete.
   */
  async revoke(manager: EntityManager, apiKeyId: string, now: number): Promise<{ revokedAt: number; already: boolean } | undefined> {
    this.forgetKeyRows();
    const [row] = await this.sql.lockRows<{ revoked_at: number | string | null }>(manager, 'SELECT revoked_at FROM api_key WHERE id = :apiKeyId', {
      apiKeyId,
    });
    if (!row) return undefined;
    if (row.revoked_at !== null) return { revokedAt: Number(row.revoked_at), already: true };
    await manager.update(ApiKeyEntity, { id: apiKeyId }, { revokedAt: now, lastUpdated: now });
    await manager.delete(ApiKeyAuthTokenEntity, { apiKeyId });
    return { revokedAt: now, already: false };
  }

  /**
   * Up to `limit` live keys of a workspace in (createdAt, id) order, after the keyset `after`,
   * only `ids` when given. Query builder: the row-value comparison of the keyset has no
   * find-options form; listing keys is an operator's call, not a hot path.
   */
  async page(workspaceId: string, options: { ids?: readonly string[]; after?: [createdAt: number, id: string]; limit: number }): Promise<ApiKeySummary[]> {
    const query = this.keys
      .createQueryBuilder('k')
      .where('k.workspace_id = :workspaceId AND k.revoked_at IS NULL', { workspaceId })
      .orderBy('k.created_at', 'ASC')
      .addOrderBy('k.id', 'ASC')
      .take(options.limit);
    if (options.ids) query.andWhere('k.id IN (:...ids)', { ids: options.ids.length ? [...options.ids] : [''] });
    if (options.after) query.andWhere('(k.created_at, k.id) > (:t, :id)', { t: options.after[0], id: options.after[1] });
    return (await query.getMany()).map(summary);
  }

  /** Every live key of these workspaces, oldest first. Entity: workspace reads are rare, and the timestamp transformer applies. */
  async ofWorkspaces(workspaceIds: readonly string[]): Promise<ApiKeySummary[]> {
    if (!workspaceIds.length) return [];
    const keys = await this.keys.find({ where: { workspaceId: In([...workspaceIds]), revokedAt: IsNull() }, order: { createdAt: 'ASC', id: 'ASC' } });
    return keys.map(summary);
  }

  /** A key as an operator sees it. Entity: an operator's read (admin CLI). */
  async record(apiKeyId: string): Promise<ApiKeyRecord | undefined> {
    const key = await this.keys.findOneBy({ id: apiKeyId });
    return key ? recordOf(key) : undefined;
  }

  /**
   * The newest `limit` keys, newest first, only the workspace's when given. Entity: an
   * operator's listing (admin CLI), not a hot path.
   */
  async newest(options: { workspaceId?: string; limit?: number }): Promise<ApiKeyRecord[]> {
    const keys = await this.keys.find({
      where: options.workspaceId === undefined ? {} : { workspaceId: options.workspaceId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: options.limit,
    });
    return keys.map(recordOf);
  }

  /** Whether the workspace has this key, live; given a unit of work's `manager`, as that unit sees it. */
  async belongsTo(workspaceId: string, apiKeyId: string, manager?: EntityManager): Promise<boolean> {
    return (manager?.getRepository(ApiKeyEntity) ?? this.keys).existsBy({ id: apiKeyId, workspaceId, revokedAt: IsNull() });
  }

  /** Renames a workspace's key in the caller's unit of work; false when the workspace has no such live key. */
  async rename(manager: EntityManager, workspaceId: string, apiKeyId: string, name: string): Promise<boolean> {
    const result = await manager.update(ApiKeyEntity, { id: apiKeyId, workspaceId, revokedAt: IsNull() }, { name, lastUpdated: Date.now() });
    return Boolean(result.affected);
  }

  /**
   * The key's settings, defaults for what they do not hold (and for a key that is gone).
   * Plain SQL: directory and permission reads ask on every call, one indexed lookup.
   */
  async settings(apiKeyId: string): Promise<KeySettings> {
    const unit = currentUnit();
    if (unit) return settingsOf((await this.keyRowsInUnit(unit, [apiKeyId])).get(apiKeyId)?.settings);
    const [row] = await this.sql.rows<{ settings: string }>(SELECT_SETTINGS, { apiKeyId });
    return settingsOf(row?.settings);
  }

  /** The keys' rows as the run of a unit of work `unit` read them, read (on its connection) only the first time it asks (see `unitKeyRows`). */
  private async keyRowsInUnit(unit: UnitRun, apiKeyIds: readonly string[]): Promise<Map<string, KeyRow | null>> {
    let kept = unitKeyRows.get(unit);
    if (!kept) unitKeyRows.set(unit, (kept = new Map()));
    const missing = apiKeyIds.filter((id) => !kept.has(id));
    if (missing.length) {
      const rows = await this.sql.rows<KeyRow>(SELECT_KEY_ROWS, { apiKeyIds: missing });
      for (const id of missing) kept.set(id, null);
      for (const row of rows) kept.set(row.id, row);
    }
    return new Map(apiKeyIds.map((id) => [id, kept.get(id) ?? null]));
  }

  /** Forgets what the caller's run of a unit of work read of keys: it is about to lock or write a key's row. */
  private forgetKeyRows(): void {
    const unit = currentUnit();
    if (unit) unitKeyRows.delete(unit);
  }

  /**
   * Owner, plan and settings of a live key (undefined for a revoked one, as for an unknown one). Plain SQL: one join to the workspace's plan, which no
   * entity relation models; the `workspace` table is `WorkspaceStore`'s, read here only,
   * because this module sits below the workspace operations and cannot call it.
   */
  async profile(apiKeyId: string): Promise<KeyProfile | undefined> {
    const [row] = await this.sql.rows<{ owner_email: string; settings: string; plan: WorkspacePlan }>(
      'SELECT k.owner_email, k.settings, w.plan FROM api_key k JOIN workspace w ON w.id = k.workspace_id WHERE k.id = :apiKeyId AND k.revoked_at IS NULL',
      { apiKeyId },
    );
    return row && { ownerEmail: row.owner_email, plan: row.plan, settings: settingsOf(row.settings) };
  }

  /**
   * The key's settings, locked until the caller's unit of work ends, so concurrent
   * read-merge-writes take turns; write them back with `saveSettings`. Plain SQL:
   * `Sql.lockRows` adds the dialect's lock clause to one column's read.
   */
  async lockSettings(manager: EntityManager, apiKeyId: string): Promise<KeySettings | undefined> {
    this.forgetKeyRows();
    const [row] = await this.sql.lockRows<{ settings: string }>(manager, SELECT_SETTINGS, { apiKeyId });
    return row && settingsOf(row.settings);
  }

  /** Replaces the key's settings in the caller's unit of work. Entity: the JSON column's transformer writes them. */
  async saveSettings(manager: EntityManager, apiKeyId: string, settings: KeySettings): Promise<void> {
    this.forgetKeyRows();
    await manager.update(ApiKeyEntity, { id: apiKeyId }, { settings, lastUpdated: Date.now() });
  }

  /** The key's delivery configs (`configsByKey` for one key: inside a unit of work, the row it keeps). */
  async configs(apiKeyId: string): Promise<KeyConfigs | undefined> {
    return (await this.configsByKey([apiKeyId])).get(apiKeyId);
  }

  /**
   * The delivery configs of several keys, by key (keys that are gone are absent); inside a unit
   * of work, read on its connection (`Sql.rows`). Plain SQL: the delivery pipeline and every
   * recorded event read them.
   */
  async configsByKey(apiKeyIds: readonly string[]): Promise<Map<string, KeyConfigs>> {
    if (!apiKeyIds.length) return new Map();
    const unit = currentUnit();
    if (unit) {
      const rows = await this.keyRowsInUnit(unit, apiKeyIds);
      return new Map([...rows].flatMap(([id, row]): [string, KeyConfigs][] => (row ? [[id, configsOf(row)]] : [])));
    }
    const rows = await this.sql.rows<ConfigColumns & { id: string }>(
      'SELECT id, email_config, webhook_config, notification_config, advanced_webhook_config FROM api_key WHERE id IN (:...apiKeyIds)',
      {
        apiKeyIds: [...apiKeyIds],
      },
    );
    return new Map(rows.map((row) => [row.id, configsOf(row)]));
  }

  /** The key's delivery configs, locked like `lockSettings`; write changes back with `saveConfigs`. */
  async lockConfigs(manager: EntityManager, apiKeyId: string): Promise<KeyConfigs | undefined> {
    this.forgetKeyRows();
    const [row] = await this.sql.lockRows<ConfigColumns>(manager, SELECT_CONFIGS, { apiKeyId });
    return row && configsOf(row);
  }

  /** Stores the configs given (the others stay as they are) in the caller's unit of work. Entity: the JSON columns' transformer writes them. */
  async saveConfigs(manager: EntityManager, apiKeyId: string, changed: Partial<KeyConfigs>): Promise<void> {
    this.forgetKeyRows();
    await manager.update(
      ApiKeyEntity,
      { id: apiKeyId },
      {
        ...(changed.email ? { emailConfig: changed.email } : {}),
        ...(changed.webhook ? { webhookConfig: changed.webhook } : {}),
        ...(changed.notification ? { notificationConfig: changed.notification } : {}),
        ...(changed.advanced ? { advancedWebhookConfig: changed.advanced } : {}),
        lastUpdated: Date.now(),
      },
    );
  }

  /**
   * Master key rotation (see `SecretsRekey`): every auth token sealed under the new key with its
   * lookup hash recomputed, and the secrets inside the key's JSON columns (the e-mail provider
   * key, the basic webhook's auth token, the AI model keys) sealed anew. Plain SQL: batched
   * keyset reads and one update per batch, in the rotation's unit of work; the JSON columns are
   * rewritten as read, only the secret fields changed.
   */
  async rekeySecrets(rekey: SecretsRekey): Promise<void> {
    const { manager } = rekey;
    this.forgetKeyRows();
    const count = async (sql: string) => Number((await this.sql.run<{ n: number | string }>(manager, sql, {}))[0]!.n);
    const after = (key: string | null): Parameters => (key === null ? {} : { after: key });
    const where = (key: string | null) => (key === null ? '' : ' WHERE id > :after');
    await rekey.inBatches(
      'api_key_auth_token',
      await count('SELECT COUNT(*) AS n FROM api_key_auth_token'),
      (key) =>
        this.sql.run<{ id: string; token_enc: string }>(
          manager,
          `SELECT id, token_enc FROM api_key_auth_token${where(key)} ORDER BY id LIMIT ${REKEY_BATCH}`,
          after(key),
        ),
      async (rows) => {
        const rewritten = rows.map((row) => {
          const token = rekey.open(row.token_enc, { table: 'api_key_auth_token', column: 'token_enc', row: row.id });
          return [row.id, rekey.seal(token), rekey.hash(token, { table: 'api_key_auth_token', column: 'token_hash' })];
        });
        if (!rekey.writing) return;
        await this.sql.updateRows(
          manager,
          'api_key_auth_token',
          {
            match: [{ name: 'id', type: 'varchar' }],
            set: [
              { name: 'token_enc', type: 'text' },
              { name: 'token_hash', type: 'varchar' },
            ],
          },
          rewritten,
        );
      },
    );
    type Row = { id: string; email_config: string; webhook_config: string; settings: string };
    await rekey.inBatches(
      'api_key',
      await count('SELECT COUNT(*) AS n FROM api_key'),
      (key) =>
        this.sql.run<Row>(manager, `SELECT id, email_config, webhook_config, settings FROM api_key${where(key)} ORDER BY id LIMIT ${REKEY_BATCH}`, after(key)),
      async (rows) => {
        const changed = rows.flatMap((row) => {
          const place = (column: string) => ({ table: 'api_key', column, row: row.id });
          const email = JSON.parse(row.email_config) as Partial<StoredEmailConfig>;
          const webhook = JSON.parse(row.webhook_config) as Partial<StoredWebhookConfig>;
          const settings = JSON.parse(row.settings) as Partial<KeySettings>;
          let secrets = 0;
          if (email.emailServiceConfig?.apiKeyEnc) {
            email.emailServiceConfig.apiKeyEnc = rekey.reseal(email.emailServiceConfig.apiKeyEnc, place('email_config.emailServiceConfig.apiKeyEnc'));
            secrets += 1;
          }
          if (webhook.webhookServiceConfig?.authTokenEnc) {
            webhook.webhookServiceConfig.authTokenEnc = rekey.reseal(
              webhook.webhookServiceConfig.authTokenEnc,
              place('webhook_config.webhookServiceConfig.authTokenEnc'),
            );
            secrets += 1;
          }
          for (const [provider, sealed] of Object.entries(settings.aiModelKeysEnc ?? {})) {
            settings.aiModelKeysEnc![provider] = rekey.reseal(sealed, place('settings.aiModelKeysEnc'));
            secrets += 1;
          }
          return secrets ? [[row.id, JSON.stringify(email), JSON.stringify(webhook), JSON.stringify(settings)]] : [];
        });
        if (!rekey.writing) return;
        await this.sql.updateRows(
          manager,
          'api_key',
          {
            match: [{ name: 'id', type: 'varchar' }],
            set: [
              { name: 'email_config', type: 'text' },
              { name: 'webhook_config', type: 'text' },
              { name: 'settings', type: 'text' },
            ],
          },
          changed,
        );
      },
    );
  }
}

function summary(key: ApiKeyEntity): ApiKeySummary {
  return { id: key.id, workspaceId: key.workspaceId, name: key.name, type: key.type, createdAt: key.createdAt };
}

function recordOf(key: ApiKeyEntity): ApiKeyRecord {
  return {
    id: key.id,
    workspaceId: key.workspaceId,
    name: key.name,
    type: key.type,
    ownerEmail: key.ownerEmail,
    persistenceDbRegion: key.persistenceDbRegion,
    realtimeDbRegion: key.realtimeDbRegion,
    createdAt: key.createdAt,
    lastUpdated: key.lastUpdated,
    revokedAt: key.revokedAt,
  };
}

/** The `settings` column (JSON) over the defaults for what it does not hold. */
function settingsOf(json: string | undefined): KeySettings {
  return { ...defaultKeySettings(), ...(json ? (JSON.parse(json) as Partial<KeySettings>) : {}) };
}

/** The config columns (JSON), each over its never-configured defaults. */
function configsOf(row: ConfigColumns): KeyConfigs {
  return {
    email: { ...neverConfiguredEmail(), ...(JSON.parse(row.email_config) as StoredEmailConfig) },
    webhook: { ...neverConfiguredWebhook(), ...(JSON.parse(row.webhook_config) as StoredWebhookConfig) },
    notification: { ...neverConfiguredNotification(), ...(JSON.parse(row.notification_config) as StoredNotificationConfig) },
    advanced: row.advanced_webhook_config === null ? null : (JSON.parse(row.advanced_webhook_config) as StoredAdvancedWebhookConfig),
  };
}
