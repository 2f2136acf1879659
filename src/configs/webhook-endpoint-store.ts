import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Secrets } from '../common/secrets.js';
import { REKEY_BATCH, type SecretsRekey } from '../common/secrets-rekey.js';
import { Sql } from '../database/sql.js';
import type { EndpointView } from './dto/endpoint.response.js';

type EndpointRow = {
  id: string;
  url: string;
  description: string | null;
  filter_types: string | null;
  channels: string | null;
  disabled: boolean | number;
  rate_limit: number | null;
  uid: string | null;
  metadata: string | null;
  created_at: number | string;
  updated_at: number | string;
};

/** An endpoint as the delivery pipeline needs it, secret opened. */
export interface DeliveryEndpoint {
  id: string;
  url: string;
  disabled: boolean;
  /** Deliveries per second, when limited. */
  rateLimit: number | null;
  secret: string;
  /** The secret before the last rotation, while its overlap window lasts: deliveries carry both signatures. */
  previousSecret: string | null;
}

/** An endpoint with no success for this long is disabled (contract 6.3). */
export const FAILING_ENDPOINT_DISABLED_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

const COLUMNS = 'id, url, description, filter_types, channels, disabled, rate_limit, uid, metadata, created_at, updated_at';
/** Columns of the fields an update may change; the JSON ones are stored as text. */
const UPDATABLE_COLUMNS = {
  url: 'url',
  description: 'description',
  filterTypes: 'filter_types',
  channels: 'channels',
  disabled: 'disabled',
  rateLimit: 'rate_limit',
  metadata: 'metadata',
} as const;
const JSON_FIELDS = new Set(['filterTypes', 'channels', 'metadata']);
/** A new endpoint's fields, its secret in clear (sealed here). */
export interface NewEndpoint {
  id: string;
  url: string;
  description: string | null;
  filterTypes: string[] | null;
  channels: string[] | null;
  disabled: boolean;
  rateLimit: number | null;
  uid: string | null;
  metadata: Record<string, string> | null;
  secret: string;
}

/** The fields an update may change (`null` clears an optional one). */
export type EndpointChanges = Partial<Record<keyof typeof UPDATABLE_COLUMNS, unknown>>;

/**
 * Owner of `webhook_endpoint`: advanced webhook endpoints with their signing secrets, stored
 * encrypted (and opened only for delivery and the secret operation), their health, and the
 * previous secret of a rotation. Plain SQL throughout: conditional writes answer through
 * `RETURNING` alike on both engines, and delivery reads run on the writing unit's connection.
 */
@Injectable()
export class WebhookEndpointStore {
  constructor(
    private readonly sql: Sql,
    private readonly secrets: Secrets,
  ) {}

  /** Adds an endpoint; false when the key already has one with its `uid` (the only other unique key). */
  async insert(manager: EntityManager, apiKeyId: string, endpoint: NewEndpoint, at: number): Promise<boolean> {
    const inserted = await this.sql.run<{ id: string }>(
      manager,
      `INSERT INTO webhook_endpoint (api_key_id, ${COLUMNS}, secret_enc)
        VALUES (:apiKeyId, :id, :url, :description, :filterTypes, :channels, :disabled, :rateLimit, :uid, :metadata, :now, :now, :secretEnc)
        ON CONFLICT DO NOTHING RETURNING id`,
      {
        apiKeyId,
        id: endpoint.id,
        url: endpoint.url,
        description: endpoint.description,
        filterTypes: jsonOrNull(endpoint.filterTypes),
        channels: jsonOrNull(endpoint.channels),
        disabled: endpoint.disabled,
        rateLimit: endpoint.rateLimit,
        uid: endpoint.uid,
        metadata: jsonOrNull(endpoint.metadata),
        now: at,
        secretEnc: this.secrets.encrypt(endpoint.secret),
      },
    );
    return inserted.length > 0;
  }

  /** One endpoint of the key; undefined when it has none of that id. */
  async get(apiKeyId: string, id: string): Promise<EndpointView | undefined> {
    const [row] = await this.sql.rows<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoint WHERE api_key_id = :apiKeyId AND id = :id`, { apiKeyId, id });
    return row && toEndpoint(row);
  }

  /** Up to `limit` endpoints of the key after (or, `backwards`, before) id `bound`, nearest first. */
  async page(apiKeyId: string, bound: string | undefined, backwards: boolean, limit: number): Promise<EndpointView[]> {
    const after = bound === undefined ? '' : backwards ? ' AND id < :bound' : ' AND id > :bound';
    const rows = await this.sql.rows<EndpointRow>(
      `SELECT ${COLUMNS} FROM webhook_endpoint WHERE api_key_id = :apiKeyId${after} ORDER BY id ${backwards ? 'DESC' : 'ASC'} LIMIT :limit`,
      { apiKeyId, limit, ...(bound === undefined ? {} : { bound }) },
    );
    return rows.map(toEndpoint);
  }

  /** Changes the given fields; false when the key has no such endpoint. Enabling or disabling one by hand starts its failure count afresh. */
  async update(manager: EntityManager, apiKeyId: string, endpointId: string, changes: EndpointChanges, at: number): Promise<boolean> {
    const sent = Object.entries(changes);
    const values = Object.fromEntries(
      sent.map(([field, value]) => [field, JSON_FIELDS.has(field) ? jsonOrNull(value as object | null) : (value as string | number | boolean | null)]),
    );
    const updated = await this.sql.run<{ id: string }>(
      manager,
      `UPDATE webhook_endpoint SET ${sent.map(([field]) => `${UPDATABLE_COLUMNS[field as keyof typeof UPDATABLE_COLUMNS]} = :${field}`).join(', ')}${changes.disabled !== undefined ? ', failing_since = NULL' : ''}, updated_at = :now WHERE api_key_id = :apiKeyId AND id = :endpointId RETURNING id`,
      { ...values, now: at, apiKeyId, endpointId },
    );
    return updated.length > 0;
  }

  /** The endpoint's signing secret, opened; undefined when the key has no such endpoint. */
  async secretOf(apiKeyId: string, endpointId: string): Promise<string | undefined> {
    const [row] = await this.sql.rows<{ secret_enc: string }>('SELECT secret_enc FROM webhook_endpoint WHERE api_key_id = :apiKeyId AND id = :endpointId', {
      apiKeyId,
      endpointId,
    });
    return row && this.secrets.decrypt(row.secret_enc);
  }

  /**
   * Replaces the signing secret; the old one stays the previous secret until `previousUntil`
   * (null: it ends now). The row is locked first, so two rotations take turns. False when the
   * key has no such endpoint.
   */
  async rotateSecret(manager: EntityManager, apiKeyId: string, endpointId: string, secret: string, previousUntil: number | null, at: number): Promise<boolean> {
    const [row] = await this.sql.lockRows<{ secret_enc: string }>(
      manager,
      'SELECT secret_enc FROM webhook_endpoint WHERE api_key_id = :apiKeyId AND id = :endpointId',
      { apiKeyId, endpointId },
      { keysKept: true },
    );
    if (!row) return false;
    await this.sql.run(
      manager,
      `UPDATE webhook_endpoint SET secret_enc = :secretEnc, previous_secret_enc = :previousEnc, previous_secret_until = :until, updated_at = :now
        WHERE api_key_id = :apiKeyId AND id = :endpointId`,
      {
        secretEnc: this.secrets.encrypt(secret),
        previousEnc: previousUntil === null ? null : row.secret_enc,
        until: previousUntil,
        now: at,
        apiKeyId,
        endpointId,
      },
    );
    return true;
  }

  /** Deletes the endpoint and its secrets; false when the key has no such endpoint. */
  async delete(manager: EntityManager, apiKeyId: string, endpointId: string): Promise<boolean> {
    const deleted = await this.sql.run<{ id: string }>(manager, 'DELETE FROM webhook_endpoint WHERE api_key_id = :apiKeyId AND id = :endpointId RETURNING id', {
      apiKeyId,
      endpointId,
    });
    return deleted.length > 0;
  }

  /** The key's endpoints that receive events (not disabled); inside a unit of work (one writing an event), read on its connection. */
  async routable(apiKeyId: string): Promise<{ id: string; filterTypes: string[] | null }[]> {
    const rows = await this.sql.rows<{ id: string; filter_types: string | null }>(
      'SELECT id, filter_types FROM webhook_endpoint WHERE api_key_id = :apiKeyId AND disabled = :disabled ORDER BY id',
      { apiKeyId, disabled: false },
    );
    return rows.map((row) => ({ id: row.id, filterTypes: row.filter_types === null ? null : (JSON.parse(row.filter_types) as string[]) }));
  }

  /**
   * Every endpoint of the key with its health, in creation order, for the delivery health: the
   * screen lists the failing and disabled ones, and counts what waits for each of them.
   * `failingSince` is when its current streak of failed attempts began (null: its latest attempt
   * succeeded, it was never attempted, or it was enabled or disabled by hand since).
   */
  async healthOf(apiKeyId: string): Promise<{ id: string; url: string; disabled: boolean; failingSince: number | null }[]> {
    const rows = await this.sql.rows<{ id: string; url: string; disabled: boolean | number; failing_since: number | string | null }>(
      'SELECT id, url, disabled, failing_since FROM webhook_endpoint WHERE api_key_id = :apiKeyId ORDER BY id',
      { apiKeyId },
    );
    return rows.map((row) => ({
      id: row.id,
      url: row.url,
      disabled: Boolean(row.disabled),
      failingSince: row.failing_since === null ? null : Number(row.failing_since),
    }));
  }

  /** Endpoints by key and id as deliveries need them now (deleted ones are absent); inside a unit of work, read on its connection. */
  async forDelivery(endpoints: readonly { apiKeyId: string; endpointId: string }[]): Promise<Map<string, DeliveryEndpoint>> {
    const byKey = new Map<string, string[]>();
    for (const { apiKeyId, endpointId } of endpoints) (byKey.get(apiKeyId) ?? byKey.set(apiKeyId, []).get(apiKeyId)!).push(endpointId);
    const found = new Map<string, DeliveryEndpoint>();
    for (const [apiKeyId, ids] of byKey) {
      type Row = {
        id: string;
        url: string;
        disabled: boolean | number;
        rate_limit: number | null;
        secret_enc: string;
        previous_secret_enc: string | null;
        previous_secret_until: number | string | null;
      };
      const rows = await this.sql.rows<Row>(
        `SELECT id, url, disabled, rate_limit, secret_enc, previous_secret_enc, previous_secret_until
          FROM webhook_endpoint WHERE api_key_id = :apiKeyId AND id IN (:...ids)`,
        { apiKeyId, ids: [...new Set(ids)] },
      );
      const now = Date.now();
      for (const row of rows) {
        found.set(row.id, {
          id: row.id,
          url: row.url,
          disabled: Boolean(row.disabled),
          rateLimit: row.rate_limit === null ? null : Number(row.rate_limit),
          secret: this.secrets.decrypt(row.secret_enc),
          previousSecret: row.previous_secret_enc !== null && Number(row.previous_secret_until) > now ? this.secrets.decrypt(row.previous_secret_enc) : null,
        });
      }
    }
    return found;
  }

  /**
   * Locks the rows of endpoints whose health an outcome writer is about to record, in id order,
   * before it touches their deliveries. Deleting an endpoint locks its row, then cancels its
   * deliveries; a writer holding deliveries and waiting for the endpoint row would close a cycle
   * (PostgreSQL deadlock, and the delete answered 500). Endpoint rows first, deliveries after, is
   * the one lock order. Ids are unique across keys, so the keys' and ids' lists select exactly
   * these rows. Answers the ids of those on a failing streak now: a success needs to clear only
   * theirs (`recordHealth`), and the lock keeps the answer true until the unit ends.
   */
  async lockForHealth(manager: EntityManager, endpoints: readonly { apiKeyId: string; endpointId: string }[]): Promise<Set<string>> {
    if (!endpoints.length) return new Set();
    const rows = await this.sql.lockRows<{ id: string; failing_since: number | string | null }>(
      manager,
      'SELECT id, failing_since FROM webhook_endpoint WHERE api_key_id IN (:...apiKeyIds) AND id IN (:...ids) ORDER BY id',
      { apiKeyIds: [...new Set(endpoints.map((e) => e.apiKeyId))], ids: [...new Set(endpoints.map((e) => e.endpointId))] },
      // Health columns only: rows referring to the endpoint's key are not held up.
      { keysKept: true },
    );
    return new Set(rows.filter((row) => row.failing_since !== null).map((row) => row.id));
  }

  /**
   * Keeps an endpoint's health from its latest attempt: a success clears its failing streak (no
   * statement when `lockForHealth` found none); a failure starts one, and disables the endpoint
   * when the receiver answered 410 Gone or the streak has lasted
   * `FAILING_ENDPOINT_DISABLED_AFTER_MS`. Returns whether it was disabled now.
   */
  async recordHealth(
    manager: EntityManager,
    apiKeyId: string,
    endpointId: string,
    outcome: { succeeded: boolean; gone: boolean; at: number },
    failing: ReadonlySet<string>,
  ): Promise<boolean> {
    const place = { apiKeyId, endpointId };
    if (outcome.succeeded) {
      if (!failing.has(endpointId)) return false;
      await this.sql.run(
        manager,
        'UPDATE webhook_endpoint SET failing_since = NULL WHERE api_key_id = :apiKeyId AND id = :endpointId AND failing_since IS NOT NULL',
        place,
      );
      return false;
    }
    await this.sql.run(manager, 'UPDATE webhook_endpoint SET failing_since = :at WHERE api_key_id = :apiKeyId AND id = :endpointId AND failing_since IS NULL', {
      ...place,
      at: outcome.at,
    });
    const disabled = await this.sql.run<{ id: string }>(
      manager,
      `UPDATE webhook_endpoint SET disabled = :disabled, updated_at = :at
        WHERE api_key_id = :apiKeyId AND id = :endpointId AND disabled = :enabled${outcome.gone ? '' : ' AND failing_since <= :cutoff'} RETURNING id`,
      { ...place, disabled: true, enabled: false, at: outcome.at, ...(outcome.gone ? {} : { cutoff: outcome.at - FAILING_ENDPOINT_DISABLED_AFTER_MS }) },
    );
    return disabled.length > 0;
  }

  /**
   * Master key rotation (see `SecretsRekey`): each endpoint's signing secret, and the previous
   * one of a rotation (even past its overlap: it is stored, so it stays readable), sealed under
   * the new key. Batched keyset reads by id (unique across keys) and one update per batch.
   */
  async rekeySecrets(rekey: SecretsRekey): Promise<void> {
    const { manager } = rekey;
    const [total] = await this.sql.run<{ n: number | string }>(manager, 'SELECT COUNT(*) AS n FROM webhook_endpoint', {});
    await rekey.inBatches(
      'webhook_endpoint',
      Number(total!.n),
      (after) =>
        this.sql.run<{ id: string; secret_enc: string; previous_secret_enc: string | null }>(
          manager,
          `SELECT id, secret_enc, previous_secret_enc FROM webhook_endpoint${after === null ? '' : ' WHERE id > :after'} ORDER BY id LIMIT ${REKEY_BATCH}`,
          after === null ? {} : { after },
        ),
      async (rows) => {
        const rewritten = rows.map((row) => [
          row.id,
          rekey.reseal(row.secret_enc, { table: 'webhook_endpoint', column: 'secret_enc', row: row.id }),
          row.previous_secret_enc === null
            ? null
            : rekey.reseal(row.previous_secret_enc, { table: 'webhook_endpoint', column: 'previous_secret_enc', row: row.id }),
        ]);
        if (!rekey.writing) return;
        await this.sql.updateRows(
          manager,
          'webhook_endpoint',
          {
            match: [{ name: 'id', type: 'varchar' }],
            set: [
              { name: 'secret_enc', type: 'text' },
              { name: 'previous_secret_enc', type: 'text' },
            ],
          },
          rewritten,
        );
      },
    );
  }
}

function jsonOrNull(value: object | null | undefined): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

function toEndpoint(row: EndpointRow): EndpointView {
  const parsed = <T>(text: string | null) => (text === null ? null : (JSON.parse(text) as T));
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    filterTypes: parsed<string[]>(row.filter_types),
    channels: parsed<string[]>(row.channels),
    disabled: Boolean(row.disabled),
    rateLimit: row.rate_limit === null ? null : Number(row.rate_limit),
    uid: row.uid,
    metadata: parsed<Record<string, string>>(row.metadata),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}
