import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DocumentMoves, type DocumentMove, type DocumentMoveObserver } from '../directory/document-moves.js';
import type { EntityManager } from 'typeorm';
import { Observers } from '../common/observers.js';
import { PAGE_BYTES } from '../common/paging.js';
import { Conditions, namingFilter, pageOfEach, sortedOnceRead, Sql, valuesReadApart } from '../database/sql.js';
import { addsImmutableRecords, keepsCommentEvent } from '../workspace/key-configs.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import type { FeatureType } from './feature-types.js';
import { moveDocumentColumn } from '../database/document-bodies.js';

/** An activity log record as callers read it (rest-interface part 2). */
export interface Activity {
  id: string;
  featureType: FeatureType;
  actionType: string;
  targetEntityId?: string;
  actionUser: { userId: string } & Record<string, unknown>;
  targetSubEntityId?: string;
  changes?: Record<string, unknown>;
  entityData?: unknown;
  entityTargetData?: unknown;
  displayMessageTemplate?: string;
  displayMessageTemplateData?: Record<string, unknown>;
  actionIcon?: string;
  /** Added while the key's activity config was immutable: activities update and delete refuse it (user-data erasure does not). */
  immutable?: true;
  /** Set by a caller whose activity resolver keeps the record's PII on its own servers (upstream's flag, kept as sent). */
  isActivityResolverUsed?: boolean;
  /** The service's three keys, over any keys the caller sent in `metadata` on add. */
  metadata: ServiceMetadata & Record<string, unknown>;
  timestamp: number;
}

/** What the service fills in every record's `metadata`; a caller's keys of these names are replaced. */
export type ServiceMetadata = {
  apiKey: string;
  documentId: string;
  organizationId: string;
};

/** A stored row: filter and order columns, the rest of the record as JSON text. */
export interface ActivityRow {
  id: string;
  document_id: string;
  feature_type: FeatureType;
  action_type: string;
  target_entity_id: string | null;
  timestamp: number | string;
  body: string;
}

/**
 * Everything of a record that has no column of its own (it always holds `actionUser`), and the
 * caller's own `metadata` keys when it sent some.
 */
export type ActivityBody = Omit<Activity, 'id' | 'featureType' | 'actionType' | 'targetEntityId' | 'metadata' | 'timestamp'> & {
  metadata?: Record<string, unknown>;
};

/** How records came to be written. */
export interface ActivityWrite {
  /** By activities add (each is an event of contract 6.2), rather than by activities update. */
  added: boolean;
  /** None of them existed before (their ids were just made): nothing derived from an earlier version exists. */
  fresh: boolean;
  /** Kept in the log but not events: no deliveries (a comment written with `triggerNotification` off). */
  quiet?: boolean;
  /**
   * Feature events the service records itself (comment writes), not records a caller added: only
   * those the key's activity config keeps are written (`keepsCommentEvent`).
   */
  featureEvents?: boolean;
}

/**
 * What other modules learn about activity writes, inside the writing transaction, so what they
 * derive (memory's judgments, the event outbox) commits or rolls back with the activity itself.
 */
export interface ActivityObserver {
  /** Records added, overwritten or updated, as they now are. */
  activitiesWritten(manager: EntityManager, apiKeyId: string, activities: Activity[], write: ActivityWrite): Promise<void>;
  /** Records deleted, by id. */
  activitiesDeleted(manager: EntityManager, apiKeyId: string, organizationId: string, ids: string[]): Promise<void>;
}

const COLUMNS = [
  'api_key_id',
  'organization_id',
  'id',
  'document_id',
  'feature_type',
  'action_type',
  'action_user_id',
  'target_entity_id',
  'timestamp',
  'immutable',
  'body',
] as const;

/** What activities get filters by, every one an AND (absent: no filter). */
export interface ActivityFilter {
  documentId?: string;
  targetEntityId?: string;
  /** Made by this user. */
  userId?: string;
  featureTypes?: readonly string[];
  actionTypes?: readonly string[];
  activityIds?: readonly string[];
}

/** A record as JSON text (see `rowJson`), with the keyset position it was read at. */
export interface ActivityJson {
  json: string;
  timestamp: number;
  id: string;
}

/** A record with the length of its stored JSON text, which page byte bounds count. */
export interface SizedActivity {
  activity: Activity;
  size: number;
}

const ROW_COLUMNS = 'id, document_id, feature_type, action_type, target_entity_id, timestamp, body';
const SELECT_ROW = `SELECT ${ROW_COLUMNS} FROM activity`;

/**
 * The owner of the `activity` table: every statement on it is a method here, and answers typed
 * records (`Activity`), never its rows. Every add, update and delete goes through here, and
 * observers registered at start-up see each of them in the same transaction.
 *
 * Every statement is plain SQL: records are a few filter columns and a JSON body spliced or
 * parsed here (`fromRow`, `rowJson`), which TypeORM's entities would only parse twice; batch
 * writes and locked reads need `Sql`'s per-dialect forms.
 */
@Injectable()
export class ActivityStore implements DocumentMoveObserver, OnModuleInit {
  /** Modules register here at start-up to hear of every write. */
  readonly observers = new Observers<ActivityObserver>();

  constructor(
    private readonly sql: Sql,
    private readonly keys: ApiKeyStore,
    private readonly documentMoves: DocumentMoves,
  ) {}

  onModuleInit(): void {
    this.documentMoves.observers.add(this);
  }

  /** A document's records follow it to its new id, in the moving transaction. One statement: `metadata.documentId` is read from the column, so bodies keep no copy to rewrite; snapshots a caller put in `entityData` stay as written. Not an activity write: observers hear nothing (memory's judgments move themselves, and a move is no event). */
  async documentMoved(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void> {
    await moveDocumentColumn(this.sql, manager, 'activity', { apiKeyId, ...move });
  }

  /**
   * Adds records, overwriting those whose id exists (idempotent retries); `write` as observers
   * read it. The key's activity config is applied here, read once: which feature events are kept,
   * and whether records added now are immutable. Answers the records written.
   */
  async write(manager: EntityManager, apiKeyId: string, records: Activity[], write: ActivityWrite): Promise<Activity[]> {
    const config = write.added ? (await this.keys.settings(apiKeyId)).activityServiceConfig : undefined;
    const activities = write.featureEvents ? records.filter((activity) => keepsCommentEvent(config, activity.actionType)) : records;
    if (!activities.length) return activities;
    if (addsImmutableRecords(config)) for (const activity of activities) activity.immutable = true;
    const rows = activities.map((a) => [
      apiKeyId,
      a.metadata.organizationId,
      a.id,
      a.metadata.documentId,
      a.featureType,
      a.actionType,
      a.actionUser.userId,
      a.targetEntityId ?? null,
      a.timestamp,
      a.immutable ? 1 : 0,
      bodyJson(a),
    ]);
    await this.sql.insert(manager, 'activity', COLUMNS, rows, { target: ['api_key_id', 'organization_id', 'id'], update: COLUMNS.slice(3) });
    await this.observers.notify((observer) => observer.activitiesWritten(manager, apiKeyId, activities, write));
    return activities;
  }

  /**
   * Deletes the records matching every given condition (`actionUserIds`: made by one of them;
   * `mutableOnly`: immutable records stay); returns the ids deleted.
   */
  async delete(
    manager: EntityManager,
    apiKeyId: string,
    organizationId: string,
    where: { documentId?: string; targetEntityId?: string; activityIds?: string[]; actionUserIds?: string[]; mutableOnly?: boolean },
  ): Promise<string[]> {
    const conditions = new Conditions()
      .equal('api_key_id', apiKeyId)
      .equal('organization_id', organizationId)
      .equal('document_id', where.documentId)
      .equal('target_entity_id', where.targetEntityId)
      .among('id', where.activityIds)
      .among('action_user_id', where.actionUserIds)
      .equal('immutable', where.mutableOnly ? 0 : undefined);
    const deleted = await this.sql.run<{ id: string }>(manager, `DELETE FROM activity WHERE ${conditions} RETURNING id`, conditions.parameters);
    const ids = deleted.map((row) => row.id);
    if (ids.length) await this.observers.notify((observer) => observer.activitiesDeleted(manager, apiKeyId, organizationId, ids));
    return ids;
  }

  /**
   * Up to `limit` records of the organization matching `filter`, in (timestamp, id) order
   * (`order`) after `after`, as JSON text, while the records before stay under `PAGE_BYTES` of
   * stored text (the first always comes): `cut` when the bound left some out. Spliced without
   * parsing (`rowJson`), pages of 1,000 being activities get's hot path.
   */
  async pageJson(
    apiKeyId: string,
    organizationId: string,
    filter: ActivityFilter,
    order: 'asc' | 'desc',
    after: [timestamp: number, id: string] | undefined,
    limit: number,
  ): Promise<{ records: ActivityJson[]; cut: boolean }> {
    // Several action types are read one by one (`pageOfEach`).
    // (Listed activityIds are looked up by key instead: see `sortedOnceRead`.)
    const typesApart = filter.activityIds === undefined ? valuesReadApart(filter.actionTypes) : undefined;
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .equal('organization_id', organizationId)
      .equal('document_id', filter.documentId)
      .equal('target_entity_id', filter.targetEntityId)
      .equal('action_user_id', filter.userId)
      .among('feature_type', filter.featureTypes)
      .among('action_type', typesApart ? undefined : filter.actionTypes)
      .among('id', filter.activityIds);
    if (after) where.add(`(timestamp, id) ${order === 'desc' ? '<' : '>'} (:afterTimestamp, :afterId)`, { afterTimestamp: after[0], afterId: after[1] });
    const direction = order === 'desc' ? 'DESC' : 'ASC';
    const orderBy = `${filter.activityIds ? sortedOnceRead('timestamp') : 'timestamp'} ${direction}, id ${direction}`;
    const read = typesApart
      ? pageOfEach({ columns: ROW_COLUMNS, table: 'activity', where, column: 'action_type', values: typesApart, orderBy, limit })
      : { from: `activity WHERE ${where}`, parameters: where.parameters };
    const { rows, cut } = await this.sql.rowsWithinBytes<ActivityRow>({
      select: ROW_COLUMNS,
      ...read,
      orderBy,
      size: 'LENGTH(body)',
      limit,
      maxBytes: PAGE_BYTES,
    });
    return { records: rows.map((row) => ({ json: rowJson(apiKeyId, organizationId, row), timestamp: Number(row.timestamp), id: row.id })), cut };
  }

  /**
   * The organization's records of these ids (missing ones are absent), locked until the caller's
   * unit of work ends, so two updates of one record changing different fields cannot undo each
   * other; write them back with `write`.
   */
  async lockRecords(manager: EntityManager, apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<Activity[]> {
    const rows = await this.sql.lockRows<ActivityRow>(
      manager,
      `${SELECT_ROW} WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id IN (:...ids)`,
      { apiKeyId, organizationId, ids: [...ids] },
    );
    return rows.map((row) => fromRow(apiKeyId, organizationId, row));
  }

  /**
   * Deletes every record the users made, in the given organizations (null: every organization
   * of the key where they made one), organization by organization as `delete` does (user-data
   * erasure, in its unit of work).
   */
  async deleteMadeBy(manager: EntityManager, apiKeyId: string, userIds: string[], organizationIds: string[] | null): Promise<void> {
    const organizations =
      organizationIds ??
      (
        await this.sql.run<{ organization_id: string }>(
          manager,
          'SELECT DISTINCT organization_id FROM activity WHERE api_key_id = :apiKeyId AND action_user_id IN (:...userIds)',
          {
            apiKeyId,
            userIds,
          },
        )
      ).map((row) => row.organization_id);
    for (const organizationId of organizations) await this.delete(manager, apiKeyId, organizationId, { actionUserIds: userIds });
  }

  /**
   * Up to `limit` records of the organization the user made or whose text holds their id, in
   * (timestamp, id) order after `after` (user-data export). The text test is a pre-filter (an id
   * inside some other text is no mention): the caller tells mentions apart.
   */
  async madeByOrNaming(
    apiKeyId: string,
    organizationId: string,
    userId: string,
    after: [timestamp: number, id: string] | undefined,
    limit: number,
  ): Promise<SizedActivity[]> {
    const mentions = namingFilter('body', [userId]);
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .equal('organization_id', organizationId)
      .add(`(action_user_id = :userId OR ${mentions.sql})`, { userId, ...mentions.parameters });
    if (after) where.add('(timestamp, id) > (:afterTimestamp, :afterId)', { afterTimestamp: after[0], afterId: after[1] });
    const rows = await this.sql.rows<ActivityRow>(`${SELECT_ROW} WHERE ${where} ORDER BY timestamp, id LIMIT :limit`, { ...where.parameters, limit });
    return rows.map((row) => ({ activity: fromRow(apiKeyId, organizationId, row), size: row.body.length }));
  }

  /**
   * Up to `limit` records of the key (in the given organizations; null: all) whose text holds
   * one of the users' ids, in (organization, id) order after `after`, locked until the caller's
   * unit of work ends so no update of them is lost (user-data erasure scrubs them and writes them
   * back). A pre-filter, as in `madeByOrNaming`.
   */
  async lockNaming(
    manager: EntityManager,
    apiKeyId: string,
    userIds: string[],
    organizationIds: string[] | null,
    after: [organizationId: string, id: string] | undefined,
    limit: number,
  ): Promise<Activity[]> {
    const mentions = namingFilter('body', userIds);
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .among('organization_id', organizationIds ?? undefined)
      .add(mentions.sql, mentions.parameters);
    if (after) where.add('(organization_id, id) > (:afterOrganization, :afterId)', { afterOrganization: after[0], afterId: after[1] });
    const rows = await this.sql.lockRows<ActivityRow & { organization_id: string }>(
      manager,
      `SELECT organization_id, id, document_id, feature_type, action_type, target_entity_id, timestamp, body FROM activity WHERE ${where} ORDER BY organization_id, id LIMIT :limit`,
      { ...where.parameters, limit },
    );
    return rows.map((row) => fromRow(apiKeyId, row.organization_id, row));
  }
}

/** The `body` column of a record: the service's metadata keys are columns, the caller's stay in it. */
function bodyJson(activity: Activity): string {
  const { id: _id, featureType: _f, actionType: _a, targetEntityId: _t, metadata, timestamp: _ts, ...body } = activity;
  const { apiKey: _k, documentId: _d, organizationId: _o, ...sent } = metadata;
  return JSON.stringify((Object.keys(sent).length ? { ...body, metadata: sent } : body) satisfies ActivityBody);
}

/** The record's `metadata`: the caller's keys, then the service's (which win). */
function metadataOf(sent: Record<string, unknown> | undefined, service: ServiceMetadata): Activity['metadata'] {
  return sent ? { ...sent, ...service } : { ...service };
}

/** A stored row as a record. */
export function fromRow(apiKeyId: string, organizationId: string, row: ActivityRow): Activity {
  const { metadata: sent, ...body } = JSON.parse(row.body) as ActivityBody;
  return {
    id: row.id,
    featureType: row.feature_type,
    actionType: row.action_type,
    ...(row.target_entity_id !== null ? { targetEntityId: row.target_entity_id } : {}),
    ...body,
    metadata: metadataOf(sent, { apiKey: apiKeyId, documentId: row.document_id, organizationId }),
    timestamp: Number(row.timestamp),
  };
}

/**
 * A stored row as record JSON, spliced from its parts without parsing the body: the same
 * text `JSON.stringify(fromRow(...))` gives, at a fraction of the cost for pages of 1,000.
 */
export function rowJson(apiKeyId: string, organizationId: string, row: ActivityRow): string {
  // A body holding the caller's metadata (or any key of that name, deeper down) takes the slow way.
  if (row.body.includes('"metadata":')) return JSON.stringify(fromRow(apiKeyId, organizationId, row));
  const target = row.target_entity_id !== null ? `"targetEntityId":${JSON.stringify(row.target_entity_id)},` : '';
  const metadata = `{"apiKey":${JSON.stringify(apiKeyId)},"documentId":${JSON.stringify(row.document_id)},"organizationId":${JSON.stringify(organizationId)}}`;
  return `{"id":${JSON.stringify(row.id)},"featureType":${JSON.stringify(row.feature_type)},"actionType":${JSON.stringify(row.action_type)},${target}${row.body.slice(1, -1)},"metadata":${metadata},"timestamp":${Number(row.timestamp)}}`;
}
