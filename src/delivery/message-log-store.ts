import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { chunksOf } from '../common/collections.js';
import { Conditions, Sql } from '../database/sql.js';
import type { DeliveryChannel } from './delivery-routes.js';
import type { DeliveryStatus } from './outbox-store.js';

/** A delivery as the message log lists it. */
export interface DeliveryRecord {
  id: string;
  messageId: string;
  target: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  /** A worker holds it and is attempting it now. */
  inFlight: boolean;
  nextAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  attemptLog: AttemptRecord[];
}

export interface AttemptRecord {
  attempt: number;
  attemptedAt: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The start of the receiver's answer body (at most 500 characters). */
  responseBody: string | null;
  nextAttemptAt: number | null;
}

type ListedRow = {
  id: string;
  message_id: string;
  target: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number | string;
  lease_until: number | string | null;
  next_attempt_at: number | string | null;
  last_status_code: number | string | null;
  last_error: string | null;
  created_at: number | string;
  updated_at: number | string;
};

type AttemptRow = {
  delivery_id: string;
  attempt: number | string;
  attempted_at: number | string;
  status_code: number | string | null;
  duration_ms: number | string;
  error: string | null;
  next_attempt_at: number | string | null;
  response_body: string | null;
};

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

/**
 * The outbox tables as the message log, the console and operators see them: deliveries listed
 * with their attempts, requeued by hand (retry, recover since), counted per route and their
 * last attempts for the delivery health. `OutboxStore` keeps the worker's path (append, claim,
 * settle, prune) on the same tables; the two are one owner split by who calls it.
 */
@Injectable()
export class MessageLogStore {
  constructor(private readonly sql: Sql) {}

  /**
   * Queues one message's deliveries on `channel` (to `targets`, or all) for an attempt now. A
   * settled one gets one more attempt; a pending one keeps its schedule but is due now; one in
   * flight is left alone. Returns the targets queued.
   */
  async requeue(
    manager: EntityManager,
    apiKeyId: string,
    messageId: string,
    channel: DeliveryChannel,
    targets: readonly string[] | undefined,
    now: number,
  ): Promise<string[]> {
    // The message row is locked first, so deleting old messages (`prune`) passes it by meanwhile.
    await this.sql.lockRows(manager, 'SELECT id FROM outbox_message WHERE api_key_id = :apiKeyId AND id = :messageId', { apiKeyId, messageId });
    const where = new Conditions().equal('api_key_id', apiKeyId).equal('message_id', messageId).equal('channel', channel).among('target', targets);
    const rows = await this.sql.run<{ target: string }>(
      manager,
      `UPDATE outbox_delivery SET max_attempts = CASE WHEN status = 'pending' THEN max_attempts ELSE attempts + 1 END,
          status = 'pending', next_attempt_at = :now, updated_at = :now
        WHERE ${where} AND NOT (status = 'pending' AND COALESCE(lease_until, 0) > :now) RETURNING target`,
      { ...where.parameters, now },
    );
    return rows.map((row) => row.target).sort();
  }

  /**
   * Up to `limit` failed deliveries of a key to one target whose messages were made in
   * [`since`, `until`), after message `after`, in message order: each gets one more attempt, now
   * (as `requeue` gives one). Their messages are locked first, so `prune` passes them by. Returns
   * how many were requeued and the last message looked at (the caller continues after it; none
   * when there were no more).
   */
  async requeueFailed(
    manager: EntityManager,
    apiKeyId: string,
    channel: DeliveryChannel,
    target: string,
    window: { since: number; until: number; after: string },
    limit: number,
    now: number,
  ): Promise<{ requeued: number; last: string | undefined }> {
    const found = await this.sql.rows<{ message_id: string }>(
      `SELECT d.message_id FROM outbox_delivery d JOIN outbox_message m ON m.id = d.message_id
        WHERE d.api_key_id = :apiKeyId AND d.channel = :channel AND d.target = :target AND d.status = 'failed'
          AND d.message_id > :after AND m.created_at >= :since AND m.created_at < :until
        ORDER BY d.message_id LIMIT :limit`,
      { apiKeyId, channel, target, ...window, limit },
    );
    if (!found.length) return { requeued: 0, last: undefined };
    const messageIds = found.map((row) => row.message_id);
    await this.sql.lockRows(manager, 'SELECT id FROM outbox_message WHERE api_key_id = :apiKeyId AND id IN (:...messageIds)', { apiKeyId, messageIds });
    const requeued = await this.sql.run<{ id: string }>(
      manager,
      `UPDATE outbox_delivery SET max_attempts = attempts + 1, status = 'pending', next_attempt_at = :now, updated_at = :now
        WHERE api_key_id = :apiKeyId AND channel = :channel AND target = :target AND status = 'failed' AND message_id IN (:...messageIds)
        RETURNING id`,
      { apiKeyId, channel, target, messageIds, now },
    );
    return { requeued: requeued.length, last: messageIds[messageIds.length - 1] };
  }

  /** Whether a message of the key has deliveries on the channel (to `target`, when given). */
  async hasDeliveries(apiKeyId: string, messageId: string, channel: DeliveryChannel, target?: string): Promise<boolean> {
    const where = new Conditions().equal('api_key_id', apiKeyId).equal('message_id', messageId).equal('channel', channel).equal('target', target);
    return (await this.sql.rows(`SELECT 1 AS found FROM outbox_delivery WHERE ${where} LIMIT 1`, where.parameters)).length > 0;
  }

  /**
   * One page of a key's deliveries on a channel, newest message first, with their attempts:
   * keyset over (message id, target).
   */
  async list(
    apiKeyId: string,
    channel: DeliveryChannel,
    filters: { target?: string; status?: DeliveryStatus },
    after: [messageId: string, target: string] | undefined,
    limit: number,
    now: number,
  ): Promise<DeliveryRecord[]> {
    const where = new Conditions()
      .equal('d.api_key_id', apiKeyId)
      .equal('d.channel', channel)
      .equal('d.target', filters.target)
      .equal('d.status', filters.status);
    // One row-value comparison, which both engines seek to in the index (as an OR of its
    // halves it was a filter: a page far back walked every newer delivery, 7-11 ms at 199k).
    if (after) where.add('(d.message_id, d.target) < (:afterMessage, :afterTarget)', { afterMessage: after[0], afterTarget: after[1] });
    const rows = await this.sql.rows<ListedRow>(
      `SELECT d.id, d.message_id, d.target, m.event_type, d.status, d.attempts, d.lease_until, d.next_attempt_at, d.last_status_code, d.last_error, d.created_at, d.updated_at
        FROM outbox_delivery d JOIN outbox_message m ON m.id = d.message_id
        WHERE ${where} ORDER BY d.message_id DESC, d.target DESC LIMIT :limit`,
      { ...where.parameters, limit },
    );
    const attempts = await this.attemptsOf(rows.map((row) => row.id));
    return rows.map((row) => ({
      id: row.id,
      messageId: row.message_id,
      target: row.target,
      eventType: row.event_type,
      status: row.status,
      attempts: Number(row.attempts),
      inFlight: row.status === 'pending' && row.lease_until !== null && Number(row.lease_until) > now,
      nextAttemptAt: numberOrNull(row.next_attempt_at),
      lastStatusCode: numberOrNull(row.last_status_code),
      lastError: row.last_error,
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
      // The attempts are read after the rows: an outcome written in between adds one the row does not count yet.
      attemptLog: (attempts.get(row.id) ?? []).filter((attempt) => attempt.attempt <= Number(row.attempts)),
    }));
  }

  /**
   * Deliveries an operator should look at, of every key and channel: failed ones, and pending
   * ones overdue since before `overdueBefore` (no worker is getting to them), newest first.
   */
  async troubled(
    overdueBefore: number,
    apiKeyId: string | undefined,
    limit: number,
  ): Promise<(Omit<DeliveryRecord, 'attemptLog' | 'inFlight'> & { apiKeyId: string; channel: DeliveryChannel })[]> {
    const where = new Conditions()
      .equal('d.api_key_id', apiKeyId)
      .add(
        "(d.status = 'failed' OR (d.status = 'pending' AND d.next_attempt_at < :overdueBefore AND (d.lease_until IS NULL OR d.lease_until < :overdueBefore)))",
        { overdueBefore },
      );
    const rows = await this.sql.rows<ListedRow & { api_key_id: string; channel: DeliveryChannel }>(
      `SELECT d.id, d.api_key_id, d.channel, d.message_id, d.target, m.event_type, d.status, d.attempts, d.lease_until, d.next_attempt_at, d.last_status_code, d.last_error, d.created_at, d.updated_at
        FROM outbox_delivery d JOIN outbox_message m ON m.id = d.message_id
        WHERE ${where} ORDER BY d.api_key_id, d.message_id DESC LIMIT :limit`,
      { ...where.parameters, limit },
    );
    return rows.map((row) => ({
      id: row.id,
      apiKeyId: row.api_key_id,
      channel: row.channel,
      messageId: row.message_id,
      target: row.target,
      eventType: row.event_type,
      status: row.status,
      attempts: Number(row.attempts),
      nextAttemptAt: numberOrNull(row.next_attempt_at),
      lastStatusCode: numberOrNull(row.last_status_code),
      lastError: row.last_error,
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    }));
  }

  /**
   * How many deliveries wait (pending: due, scheduled for a retry, or being attempted) on each
   * of `routes`, for the delivery health; a route with none is absent. Counted in the
   * pending-only route index alone (covering), so the cost follows what waits on these routes,
   * not the delivery history a key-wide count would read. A route belongs to one key (a key's
   * own routes name it; an endpoint's names the endpoint, whose id is unique across keys, as
   * `cancelRoute` relies on too), so a caller asking about its key's routes counts only its key's.
   */
  async waitingOn(routes: readonly string[]): Promise<Map<string, number>> {
    const waiting = new Map<string, number>();
    for (const chunk of chunksOf(routes)) {
      const rows = await this.sql.rows<{ route: string; waiting: number | string }>(
        "SELECT route, count(*) AS waiting FROM outbox_delivery WHERE status = 'pending' AND route IN (:...routes) GROUP BY route",
        { routes: chunk },
      );
      for (const row of rows) waiting.set(row.route, Number(row.waiting));
    }
    return waiting;
  }

  /**
   * The latest attempt (a request made) of a key's deliveries to each of `targets` on a channel,
   * by target; a target never attempted is absent. Attempts made at the same time (one batch)
   * are told apart by delivery, then attempt, newest first. It reads every kept delivery to
   * those targets with their attempts, so the delivery health asks only about the endpoints it
   * lists (failing or disabled ones).
   */
  async lastAttempts(
    apiKeyId: string,
    channel: DeliveryChannel,
    targets: readonly string[],
  ): Promise<Map<string, { attemptedAt: number; statusCode: number | null; error: string | null }>> {
    const latest = new Map<string, { attemptedAt: number; statusCode: number | null; error: string | null }>();
    for (const chunk of chunksOf(targets)) {
      const rows = await this.sql.rows<{ target: string; attempted_at: number | string; status_code: number | string | null; error: string | null }>(
        `SELECT target, attempted_at, status_code, error FROM (
            SELECT d.target, a.attempted_at, a.status_code, a.error,
              ROW_NUMBER() OVER (PARTITION BY d.target ORDER BY a.attempted_at DESC, d.id DESC, a.attempt DESC) AS place
            FROM outbox_delivery d JOIN delivery_attempt a ON a.delivery_id = d.id
            WHERE d.api_key_id = :apiKeyId AND d.channel = :channel AND d.target IN (:...targets)
          ) ranked WHERE place = 1`,
        { apiKeyId, channel, targets: chunk },
      );
      for (const row of rows) latest.set(row.target, { attemptedAt: Number(row.attempted_at), statusCode: numberOrNull(row.status_code), error: row.error });
    }
    return latest;
  }

  private async attemptsOf(deliveryIds: string[]): Promise<Map<string, AttemptRecord[]>> {
    const byDelivery = new Map<string, AttemptRecord[]>();
    if (!deliveryIds.length) return byDelivery;
    const rows = await this.sql.rows<AttemptRow>(
      'SELECT delivery_id, attempt, attempted_at, status_code, duration_ms, error, next_attempt_at, response_body FROM delivery_attempt WHERE delivery_id IN (:...deliveryIds) ORDER BY delivery_id, attempt',
      { deliveryIds },
    );
    for (const row of rows) {
      const list = byDelivery.get(row.delivery_id) ?? byDelivery.set(row.delivery_id, []).get(row.delivery_id)!;
      list.push({
        attempt: Number(row.attempt),
        attemptedAt: Number(row.attempted_at),
        statusCode: numberOrNull(row.status_code),
        durationMs: Number(row.duration_ms),
        error: row.error,
        nextAttemptAt: numberOrNull(row.next_attempt_at),
        responseBody: row.response_body,
      });
    }
    return byDelivery;
  }
}
