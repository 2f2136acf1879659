import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newSortableId } from '../common/ids.js';
import { chunksOf } from '../common/collections.js';
import { namingFilter, Sql, type Column } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import type { DeliveryChannel, Destination } from './delivery-routes.js';
import type { OutboxEvent } from './outbox-event.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'cancelled'];

/** A delivery a worker has claimed: it alone attempts it until it settles or the lease ends. */
export interface ClaimedDelivery {
  id: string;
  apiKeyId: string;
  /** The message id: `webhook-id`, the same on every attempt and for every destination. */
  messageId: string;
  channel: DeliveryChannel;
  target: string;
  route: string;
  /** Attempts made before this one. */
  attempts: number;
  maxAttempts: number;
  /** Proves the claim is still this worker's when the outcome is written. */
  leaseToken: string;
  event: OutboxEvent;
  /** Size of the event as stored, for bounding what a worker holds in memory. */
  eventBytes: number;
}

/** What became of a claimed delivery. */
export interface DeliveryOutcome {
  delivery: ClaimedDelivery;
  /** False when it settled without a request (its endpoint was deleted, say). */
  attempted: boolean;
  attemptedAt: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The start of the receiver's answer body, when it sent one. */
  answer: string | null;
  /** `pending` with `nextAttemptAt` for a retry, else final. */
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  /** The receiver answered 410 Gone (an advanced endpoint is disabled at once). */
  gone: boolean;
  /** Deliveries of the same message this one leads to (an audience's mails), due at once. */
  followUps?: readonly Destination[];
  /** Users whose inbox gets an entry (an inbox audience's): `InboxAudience` writes them with the outcome. */
  inbox?: readonly string[];
}

type DeliveryRow = {
  id: string;
  api_key_id: string;
  message_id: string;
  channel: DeliveryChannel;
  target: string;
  route: string;
  attempts: number | string;
  max_attempts: number | string;
};

const MESSAGE_COLUMNS = ['id', 'api_key_id', 'event_key', 'event_type', 'payload', 'created_at'] as const;
/** `outbox_delivery`'s columns, with their PostgreSQL types (new deliveries go in with their messages: `Sql.insertNew`). */
export const DELIVERY_COLUMNS: readonly Column[] = [
  { name: 'id', type: 'varchar' },
  { name: 'api_key_id', type: 'varchar' },
  { name: 'message_id', type: 'varchar' },
  { name: 'channel', type: 'varchar' },
  { name: 'target', type: 'varchar' },
  { name: 'route', type: 'varchar' },
  { name: 'status', type: 'varchar' },
  { name: 'attempts', type: 'int' },
  { name: 'max_attempts', type: 'int' },
  { name: 'next_attempt_at', type: 'bigint' },
  { name: 'created_at', type: 'bigint' },
  { name: 'updated_at', type: 'bigint' },
];
const DELIVERY_COLUMN_NAMES = DELIVERY_COLUMNS.map((column) => column.name);
/** A new delivery's row (in `DELIVERY_COLUMNS` order): pending, not yet attempted, due now. */
function pendingDeliveryRow(apiKeyId: string, messageId: string, d: Destination, now: number): (string | number)[] {
  return [newSortableId('dlv_'), apiKeyId, messageId, d.channel, d.target, d.route, 'pending', 0, d.maxAttempts, now, now, now];
}
/** `delivery_attempt`'s columns, with their PostgreSQL types (written with the outcomes, `Sql.updateRows`). */
const ATTEMPT_COLUMNS: readonly Column[] = [
  { name: 'delivery_id', type: 'varchar' },
  { name: 'attempt', type: 'int' },
  { name: 'attempted_at', type: 'bigint' },
  { name: 'status_code', type: 'int' },
  { name: 'duration_ms', type: 'int' },
  { name: 'error', type: 'text' },
  { name: 'next_attempt_at', type: 'bigint' },
  { name: 'response_body', type: 'text' },
];
/** Longest error text kept per attempt. */
const MAX_ERROR_LENGTH = 1000;

/**
 * The outbox tables (messages, deliveries, attempts): the only place their SQL lives. Writes of
 * events happen in the caller's unit of work; claims and outcomes in units of their own. Plain
 * SQL throughout: batch inserts and updates, and claims that skip rows another worker holds,
 * are per-dialect forms of `Sql` that TypeORM has no words for.
 */
@Injectable()
export class OutboxStore {
  constructor(
    private readonly sql: Sql,
    private readonly transactions: Transactions,
  ) {}

  /**
   * Writes each event that is new, with one pending delivery per destination, due at `now`. An
   * event whose key was written before (an activity added again) is not written twice.
   * Returns the ids of the messages written. `fresh`: the caller knows none was written before
   * (events of records it just made): plain inserts then, which a lazily begun unit of work
   * writes together with its other rows.
   */
  async append(
    manager: EntityManager,
    apiKeyId: string,
    entries: readonly { event: OutboxEvent; destinations: readonly Destination[] }[],
    now: number,
    { fresh = false }: { fresh?: boolean } = {},
  ): Promise<string[]> {
    const messages = entries.map((entry) => ({ id: newSortableId('msg_'), ...entry }));
    const messageRows = messages.map(({ id, event }) => [id, apiKeyId, event.key, event.type, JSON.stringify(event), now]);
    const deliveryRows = messages.flatMap((message) => message.destinations.map((d) => pendingDeliveryRow(apiKeyId, message.id, d, now)));
    if (fresh) {
      await this.sql.insertAll(manager, [
        { table: 'outbox_message', columns: MESSAGE_COLUMNS, rows: messageRows },
        { table: 'outbox_delivery', columns: DELIVERY_COLUMN_NAMES, rows: deliveryRows },
      ]);
      return messages.map((message) => message.id);
    }
    // Every message's deliveries are offered; those of a message already written (its key seen
    // before) are not inserted, in the same statement on PostgreSQL.
    const inserted = new Set(
      await this.sql.insertNew(manager, 'outbox_message', MESSAGE_COLUMNS, messageRows, ['api_key_id', 'event_key'], 'id', {
        table: 'outbox_delivery',
        columns: DELIVERY_COLUMNS,
        rows: deliveryRows,
        link: 'message_id',
      }),
    );
    return messages.filter((message) => inserted.has(message.id)).map((message) => message.id);
  }

  /**
   * The routes with a delivery due by `now`, in route order: a skip scan over the route index
   * (one seek per route that has pending deliveries, and one for its earliest), so the cost
   * follows the number of destinations with work, not the number of deliveries waiting.
   */
  async dueRoutes(manager: EntityManager, now: number): Promise<string[]> {
    const rows = await this.sql.run<{ route: string }>(
      manager,
      `WITH RECURSIVE routes(route) AS (
          SELECT (SELECT min(route) FROM outbox_delivery WHERE status = 'pending')
          UNION ALL
          SELECT (SELECT min(d.route) FROM outbox_delivery d WHERE d.status = 'pending' AND d.route > routes.route) FROM routes WHERE routes.route IS NOT NULL
        )
        SELECT route FROM routes
        WHERE route IS NOT NULL AND (SELECT min(d.next_attempt_at) FROM outbox_delivery d WHERE d.status = 'pending' AND d.route = routes.route) <= :now`,
      { now },
    );
    return rows.map((row) => row.route);
  }

  /**
   * Claims each route's oldest due deliveries that no live lease holds, up to the number asked
   * of it, leased until `leaseUntil`: a worker that dies leaves them to be claimed again then.
   * `drained`: the routes that gave fewer than asked (nothing more due there now). One statement
   * a route, each atomic alone, so the caller need not hold a transaction around them.
   */
  async claim(
    manager: EntityManager,
    now: number,
    leaseUntil: number,
    wanted: ReadonlyMap<string, number>,
  ): Promise<{ claimed: ClaimedDelivery[]; drained: string[] }> {
    const token = randomUUID();
    const drained: string[] = [];
    const claimed: DeliveryRow[] = [];
    for (const [route, count] of wanted) {
      // One statement a route: its oldest due rows, taken (and on PostgreSQL locked, skipping
      // those another worker holds) and leased.
      const rows = await this.sql.run<DeliveryRow>(
        manager,
        `UPDATE outbox_delivery SET lease_until = :leaseUntil, lease_token = :token, updated_at = :now
          WHERE id IN (${this.sql.claimable(
            `SELECT id FROM outbox_delivery WHERE status = 'pending' AND route = :route AND next_attempt_at <= :now AND (lease_until IS NULL OR lease_until <= :now)
              ORDER BY next_attempt_at, id LIMIT :count`,
          )})
          RETURNING id, api_key_id, message_id, channel, target, route, attempts, max_attempts`,
        { leaseUntil, token, now, route, count },
      );
      if (rows.length < count) drained.push(route);
      claimed.push(...rows);
    }
    if (!claimed.length) return { claimed: [], drained };
    return { claimed: await this.withEvents(manager, claimed, token), drained };
  }

  /** Claimed rows with their events, read from their messages in one query. */
  private async withEvents(manager: EntityManager, claimed: DeliveryRow[], token: string): Promise<ClaimedDelivery[]> {
    if (!claimed.length) return [];
    const messages = await this.sql.run<{ id: string; payload: string }>(manager, 'SELECT id, payload FROM outbox_message WHERE id IN (:...ids)', {
      ids: [...new Set(claimed.map((row) => row.message_id))],
    });
    const payloads = new Map(messages.map((row) => [row.id, row.payload]));
    const events = new Map<string, OutboxEvent>();
    const eventOf = (messageId: string) => events.get(messageId) ?? events.set(messageId, JSON.parse(payloads.get(messageId)!) as OutboxEvent).get(messageId)!;
    return claimed
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((row) => ({
        id: row.id,
        apiKeyId: row.api_key_id,
        messageId: row.message_id,
        channel: row.channel,
        target: row.target,
        route: row.route,
        attempts: Number(row.attempts),
        maxAttempts: Number(row.max_attempts),
        leaseToken: token,
        event: eventOf(row.message_id),
        eventBytes: payloads.get(row.message_id)!.length,
      }));
  }

  /**
   * Writes outcomes whose claim still holds (a delivery cancelled or re-claimed meanwhile is
   * left as it is), with an attempt record for each request made. Returns the outcomes written.
   */
  async settle(manager: EntityManager, outcomes: readonly DeliveryOutcome[], now: number): Promise<DeliveryOutcome[]> {
    const rows = outcomes.map((o) => [
      o.delivery.id,
      o.delivery.leaseToken,
      o.status,
      o.delivery.attempts + (o.attempted ? 1 : 0),
      o.nextAttemptAt,
      null,
      null,
      o.statusCode,
      truncate(o.error),
      now,
    ]);
    // A served inbox audience's record would go with its message, below, or say nothing the
    // delivery's own row does not (no HTTP status, no error).
    const servedInbox = (o: DeliveryOutcome) => o.delivery.channel === 'inbox_audience' && o.status !== 'pending' && o.status !== 'failed';
    const written = new Set(
      await this.sql.updateRows(
        manager,
        'outbox_delivery',
        {
          match: [
            { name: 'id', type: 'varchar' },
            { name: 'lease_token', type: 'varchar' },
          ],
          set: [
            { name: 'status', type: 'varchar' },
            { name: 'attempts', type: 'int' },
            { name: 'next_attempt_at', type: 'bigint' },
            { name: 'lease_token', type: 'varchar' },
            { name: 'lease_until', type: 'bigint' },
            { name: 'last_status_code', type: 'int' },
            { name: 'last_error', type: 'text' },
            { name: 'updated_at', type: 'bigint' },
          ],
        },
        rows,
        // The attempts' records, of the outcomes written only (their deliveries' rows updated).
        {
          table: 'delivery_attempt',
          columns: ATTEMPT_COLUMNS,
          rows: outcomes
            .filter((o) => o.attempted && !servedInbox(o))
            .map((o) => [o.delivery.id, o.delivery.attempts + 1, o.attemptedAt, o.statusCode, o.durationMs, truncate(o.error), o.nextAttemptAt, o.answer]),
        },
      ),
    );
    const settled = outcomes.filter((o) => written.has(o.delivery.id));
    const servedInboxes = settled.filter(servedInbox);
    // In the same unit as the outcome that leads to them, so they exist exactly when it is
    // settled; a destination the message already has (an attempt made twice) is not added again.
    const followUps = settled.flatMap((o) => (o.followUps ?? []).map((d) => pendingDeliveryRow(o.delivery.apiKeyId, o.delivery.messageId, d, now)));
    await this.sql.insertNew(manager, 'outbox_delivery', DELIVERY_COLUMN_NAMES, followUps, ['api_key_id', 'channel', 'target', 'message_id'], 'id');
    await this.dropServedInboxMessages(
      manager,
      servedInboxes.map((o) => o.delivery.messageId),
    );
    return settled;
  }

  /**
   * Deletes, with their deliveries, messages whose inbox audience is settled and that no other
   * destination needs: an event written only for the inbox has served once its entries are (or
   * are not to be) written, and its payload names users. Failed ones stay for the operator to see.
   */
  private async dropServedInboxMessages(manager: EntityManager, messageIds: string[]): Promise<void> {
    for (const ids of chunksOf(messageIds)) {
      await this.sql.run(
        manager,
        `DELETE FROM outbox_message WHERE id IN (:...ids)
          AND NOT EXISTS (SELECT 1 FROM outbox_delivery d WHERE d.message_id = outbox_message.id AND d.channel <> 'inbox_audience')`,
        { ids },
      );
    }
  }

  /**
   * For users' erasure: the inbox audiences of events naming them (of one key, and of
   * `organizationIds` when given) write nothing any more. Their pending deliveries are cancelled
   * (a worker holding one finds its claim gone), and messages no other destination needs are
   * deleted. Events also bound for webhooks or mail keep their payload until those settle and
   * `DELIVERY_RETENTION_DAYS` passes (docs/guides/user-data.md: not erased). Runs in batches of `limit`.
   */
  async forgetInboxAudiences(
    manager: EntityManager,
    apiKeyId: string,
    userIds: readonly string[],
    organizationIds: readonly string[] | null,
    now: number,
    limit = 500,
  ): Promise<void> {
    const naming = namingFilter('m.payload', userIds);
    for (let after = ''; ;) {
      const rows = await this.sql.rows<{ id: string; payload: string }>(
        `SELECT m.id, m.payload FROM outbox_message m
          WHERE m.api_key_id = :apiKeyId AND m.id > :after AND ${naming.sql}
            AND EXISTS (SELECT 1 FROM outbox_delivery d WHERE d.message_id = m.id AND d.channel = 'inbox_audience')
          ORDER BY m.id LIMIT :limit`,
        { apiKeyId, after, limit, ...naming.parameters },
      );
      const ids = rows
        .filter((row) => organizationIds === null || organizationIds.includes((JSON.parse(row.payload) as OutboxEvent).organizationId))
        .map((row) => row.id);
      if (ids.length) {
        await this.sql.run(
          manager,
          `UPDATE outbox_delivery SET status = 'cancelled', next_attempt_at = NULL, lease_until = NULL, lease_token = NULL, last_error = :reason, updated_at = :now
            WHERE message_id IN (:...ids) AND channel = 'inbox_audience' AND status = 'pending'`,
          { ids, reason: 'A user it names was erased.', now },
        );
        await this.dropServedInboxMessages(manager, ids);
      }
      if (rows.length < limit) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  /** Hands claimed deliveries back, due now: a worker stopping before it attempted them. */
  async release(manager: EntityManager, deliveries: readonly ClaimedDelivery[], now: number): Promise<void> {
    if (!deliveries.length) return;
    await this.sql.run(
      manager,
      'UPDATE outbox_delivery SET lease_until = NULL, lease_token = NULL, updated_at = :now WHERE id IN (:...ids) AND lease_token IN (:...tokens)',
      {
        now,
        ids: deliveries.map((d) => d.id),
        tokens: [...new Set(deliveries.map((d) => d.leaseToken))],
      },
    );
  }

  /** Stops every pending delivery on a route (an endpoint deleted): nothing more is sent there. */
  async cancelRoute(manager: EntityManager, route: string, reason: string, now: number): Promise<void> {
    await this.sql.run(
      manager,
      `UPDATE outbox_delivery SET status = 'cancelled', next_attempt_at = NULL, lease_until = NULL, lease_token = NULL, last_error = :reason, updated_at = :now
        WHERE status = 'pending' AND route = :route`,
      { route, reason, now },
    );
  }

  /** Of these claimed deliveries, the ones whose claim still holds (none cancelled or taken over since). */
  async stillClaimed(manager: EntityManager, claims: readonly ClaimedDelivery[]): Promise<Set<string>> {
    if (!claims.length) return new Set();
    const rows = await this.sql.run<{ id: string; lease_token: string | null }>(
      manager,
      "SELECT id, lease_token FROM outbox_delivery WHERE id IN (:...ids) AND status = 'pending'",
      {
        ids: claims.map((claim) => claim.id),
      },
    );
    const tokens = new Map(rows.map((row) => [row.id, row.lease_token]));
    return new Set(claims.filter((claim) => tokens.get(claim.id) === claim.leaseToken).map((claim) => claim.id));
  }

  /**
   * Ends every claim. Only for a database one process owns (the embedded one): at start-up,
   * every claim there belonged to a process that is gone.
   */
  async releaseClaims(now: number): Promise<number> {
    const released = await this.transactions.run((manager) =>
      this.sql.run<{ id: string }>(
        manager,
        `UPDATE outbox_delivery SET lease_until = NULL, lease_token = NULL, updated_at = :now WHERE status = 'pending' AND lease_token IS NOT NULL RETURNING id`,
        { now },
      ),
    );
    return released.length;
  }

  /**
   * Deletes up to `limit` messages made before `before` that no delivery waits on any more,
   * oldest first, with their deliveries and attempts (passing by those another worker is
   * deleting, or a replay holds). Returns how many went. A message deleted can no longer stop
   * its activity, added again with its id, from being a new event.
   */
  async prune(manager: EntityManager, before: number, limit: number): Promise<number> {
    const deleted = await this.sql.run<{ id: string }>(
      manager,
      `DELETE FROM outbox_message WHERE id IN (${this.sql.claimable(
        `SELECT m.id FROM outbox_message m
          WHERE m.created_at < :before AND NOT EXISTS (SELECT 1 FROM outbox_delivery d WHERE d.message_id = m.id AND d.status = 'pending')
          ORDER BY m.created_at LIMIT :limit`,
      )}) RETURNING id`,
      { before, limit },
    );
    return deleted.length;
  }

  /** Deliveries waiting for an attempt (claimed ones included), for the operator's counters. */
  async pendingCount(): Promise<number> {
    const [row] = await this.sql.rows<{ pending: number | string }>("SELECT count(*) AS pending FROM outbox_delivery WHERE status = 'pending'", {});
    return Number(row?.pending ?? 0);
  }
}

function truncate(text: string | null): string | null {
  return text === null || text.length <= MAX_ERROR_LENGTH ? text : `${text.slice(0, MAX_ERROR_LENGTH - 1)}…`;
}
