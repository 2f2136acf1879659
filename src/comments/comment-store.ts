import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PAGE_BYTES } from '../common/paging.js';
import { Conditions, namingFilter, pageOfEach, Sql, valuesReadApart, type Insert, type Parameters } from '../database/sql.js';
import { mentionsOf, type Annotation, type Comment, type Thread } from './threads.js';
import { chunksOf, groupBy } from '../common/collections.js';
import { DirectoryDeletes, type DeletedPlaces, type DirectoryObserver } from '../directory/directory-deletes.js';
import { DocumentMoves, type DocumentMove, type DocumentMoveObserver } from '../directory/document-moves.js';
import { moveDocumentBodies, moveDocumentColumn } from '../database/document-bodies.js';

const ANNOTATION_COLUMNS = [
  'api_key_id',
  'organization_id',
  'annotation_id',
  'document_id',
  'location_id',
  'status_id',
  'status_type',
  'from_user_id',
  'assignee_id',
  'resolved_by',
  'annotation_type',
  'agent_id',
  'agent_source',
  'execution_id',
  'suggestion_status',
  'created_at',
  'last_updated',
  'body',
] as const;
const COMMENT_COLUMNS = ['api_key_id', 'organization_id', 'annotation_id', 'comment_id', 'from_user_id', 'created_at', 'last_updated', 'body'] as const;
const MENTION_COLUMNS = ['api_key_id', 'organization_id', 'annotation_id', 'comment_id', 'user_id'] as const;

/** What annotations get and delete select by; every field narrows (AND), lists match any of theirs. */
export interface ThreadFilter {
  documentIds?: string[];
  annotationIds?: string[];
  locationIds?: string[];
  /** Thread authors. */
  userIds?: string[];
  mentionedUserIds?: string[];
  statusIds?: string[];
  resolvedBy?: string;
  agentId?: string;
  executionId?: string;
  agentSource?: string;
  /** `agent`: any agent thread; `pending`: agent suggestions not yet accepted or rejected. */
  agentThreads?: 'agent' | 'pending';
  /** Agent threads matching any of these (`agentFields`): by agent, by execution, by source. */
  agentFieldsAnyOf?: { agentIds: string[]; executionIds: string[]; agentSources: string[] };
  /** Agent threads stamped for one of these pages (the root comment's `agent.url`). */
  agentUrls?: string[];
  updatedAfter?: number;
  updatedBefore?: number;
  createdAfter?: number;
  createdBefore?: number;
}

interface BodyRow {
  body: string;
}

/** One thread of one key. */
export interface ThreadPlace {
  apiKeyId: string;
  organizationId: string;
  annotationId: string;
}

/** The thread a request names, under the caller's key. */
export function threadPlaceOf(apiKeyId: string, request: { organizationId: string; annotationId: string }): ThreadPlace {
  return { apiKeyId, organizationId: request.organizationId, annotationId: request.annotationId };
}

/**
 * Owner of `comment_annotation`, `comment`, `comment_mention` and `comment_counter`: the only
 * place their SQL lives.
 * Raw `Sql` throughout: the rows are JSON bodies beside a few filter columns (as `activity`'s are),
 * which entities would only wrap, and the hot paths (annotation add, pages of 1,000) run as
 * cached prepared statements on the embedded database.
 */
@Injectable()
export class CommentStore implements DirectoryObserver, DocumentMoveObserver, OnModuleInit {
  constructor(
    private readonly sql: Sql,
    private readonly directoryDeletes: DirectoryDeletes,
    private readonly documentMoves: DocumentMoves,
  ) {}

  onModuleInit(): void {
    this.directoryDeletes.observers.add(this);
    this.documentMoves.observers.add(this);
  }

  /**
   * A document's threads and its thread numbers follow it to its new id, in the moving
   * transaction; comments and mentions hang on their thread's key, which does not change. The
   * annotation's body keeps the id too (reads parse it), so it is rewritten with the column.
   */
  async documentMoved(manager: EntityManager, apiKeyId: string, move: DocumentMove): Promise<void> {
    const parameters = { apiKeyId, organizationId: move.organizationId, from: move.from, to: move.to };
    const scope = 'api_key_id = :apiKeyId AND organization_id = :organizationId';
    // Numbers go with their threads. The new id names no document, and a document's delete takes
    // its counter with its threads, so a counter still there counts no thread of the new id; it
    // would only stand in the way of the moving one (the document is in the key).
    await this.sql.run(manager, `DELETE FROM comment_counter WHERE ${scope} AND document_id = :to`, parameters);
    await moveDocumentColumn(this.sql, manager, 'comment_counter', parameters);
    await moveDocumentBodies(this.sql, manager, 'comment_annotation', 'annotation_id', parameters);
  }

  /** Threads (comments and mentions with them) and thread numbers of deleted documents go with them, in the deleting transaction. */
  async placesDeleted(manager: EntityManager, apiKeyId: string, organizationId: string, deleted: DeletedPlaces): Promise<void> {
    for (const documentIds of chunksOf(deleted.documentIds)) {
      for (const table of ['comment_annotation', 'comment_counter']) {
        await this.sql.run(
          manager,
          `DELETE FROM ${table} WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND document_id IN (:...documentIds)`,
          { apiKeyId, organizationId, documentIds },
        );
      }
    }
  }

  /** Writes annotations (a new id is inserted, an existing one overwritten); their comments are written separately. */
  async putAnnotations(manager: EntityManager, apiKeyId: string, annotations: Annotation[]): Promise<void> {
    await this.sql.insertAll(manager, [annotationRows(apiKeyId, annotations)]);
  }

  /**
   * Writes whole threads whose comments are new (threads added, or overwritten after
   * `clearComments`): annotations, comments and who each tags, in one statement on PostgreSQL.
   */
  async putThreads(manager: EntityManager, apiKeyId: string, threads: Thread[]): Promise<void> {
    await this.sql.insertAll(manager, [annotationRows(apiKeyId, threads), ...commentRows(apiKeyId, threads)]);
  }

  /** Writes comments of one thread (an existing id is overwritten) and who each tags. */
  async putComments(
    manager: EntityManager,
    apiKeyId: string,
    organizationId: string,
    annotationId: string,
    comments: Comment[],
    options: { fresh: boolean },
  ): Promise<void> {
    if (!comments.length) return;
    // Rewritten comments may tag other users now; new ones have no mentions yet.
    if (!options.fresh)
      await this.sql.run(
        manager,
        'DELETE FROM comment_mention WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND annotation_id = :annotationId AND comment_id IN (:...commentIds)',
        { apiKeyId, organizationId, annotationId, commentIds: comments.map((c) => c.commentId) },
      );
    await this.sql.insertAll(manager, commentRows(apiKeyId, [{ organizationId, annotationId, comments }]));
  }

  /**
   * Locks a document's counter row (made when missing) until the unit of work ends: thread adds to
   * one document take it before they read which of their threads exist, so identical adds sent at
   * once run one after the other, and the later one finds the earlier one's thread and overwrites
   * it (on PostgreSQL both had found none, and the second failed on the first's mention rows).
   * Adds to a document take thread numbers from this row anyway, so they queued on it already.
   * Adds of new threads only (no id sent) read no threads, and on PostgreSQL take their numbers
   * ahead, in a statement of their own, instead. Taking no number is what locks the row. Only
   * where units run concurrently: on the embedded database they run one at a time anyway.
   */
  async lockCounter(manager: EntityManager, apiKeyId: string, organizationId: string, documentId: string): Promise<void> {
    await this.takeNumbers(manager, apiKeyId, organizationId, documentId, 0);
  }

  /**
   * Takes the next `count` thread numbers of a document that exists, in one statement, and
   * answers the last of them (undefined, taking none, when the document does not exist). The
   * counter row (made when missing) stays locked until the caller's unit of work ends, so
   * concurrent adds to one document never take the same number; run alone (`atomic: false`), it is
   * locked only while the statement runs. Crosses into `document` (read only) so that the check
   * and the numbers are one round trip.
   */
  async takeNumbers(manager: EntityManager, apiKeyId: string, organizationId: string, documentId: string, count: number): Promise<number | undefined> {
    const [row] = await this.sql.run<{ last_number: number | string }>(
      manager,
      `INSERT INTO comment_counter (api_key_id, organization_id, document_id, last_number)
        SELECT api_key_id, organization_id, id, CAST(:count AS BIGINT) FROM document WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND id = :documentId
        ON CONFLICT (api_key_id, organization_id, document_id) DO UPDATE SET last_number = comment_counter.last_number + excluded.last_number RETURNING last_number`,
      { apiKeyId, organizationId, documentId, count },
    );
    return row ? Number(row.last_number) : undefined;
  }

  /** Removes every comment of a thread (an annotation add overwriting an existing id starts its thread again). */
  async clearComments(manager: EntityManager, apiKeyId: string, organizationId: string, annotationId: string): Promise<void> {
    await this.sql.run(manager, 'DELETE FROM comment WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND annotation_id = :annotationId', {
      apiKeyId,
      organizationId,
      annotationId,
    });
  }

  /**
   * Deletes comments of a thread (all of them without `commentIds`); answers the ids deleted, and
   * the comments themselves when `withComments` (for their events: only then are bodies read).
   */
  async deleteComments(
    manager: EntityManager,
    place: ThreadPlace,
    commentIds: number[] | undefined,
    withComments: boolean,
  ): Promise<{ ids: number[]; comments: Comment[] }> {
    const where = withCommentIds(this.threadConditions(place), commentIds);
    const rows = await this.sql.run<{ comment_id: number | string; body?: string }>(
      manager,
      `DELETE FROM comment WHERE ${where} RETURNING comment_id${withComments ? ', body' : ''}`,
      where.parameters,
    );
    return { ids: rows.map((row) => Number(row.comment_id)), comments: withComments ? rows.map((row) => JSON.parse(row.body!) as Comment) : [] };
  }

  /**
   * A thread's annotation (without its comments) when it sits in `documentId`, its row locked
   * until the unit of work ends, so two writes to one thread queue and a comment id is given
   * out once. Comment writes read this and the comments they name, never the whole thread.
   */
  async lockAnnotation(manager: EntityManager, place: ThreadPlace & { documentId: string }): Promise<Annotation | undefined> {
    const where = new Conditions()
      .equal('api_key_id', place.apiKeyId)
      .equal('organization_id', place.organizationId)
      .equal('annotation_id', place.annotationId)
      .equal('document_id', place.documentId);
    const [row] = await this.sql.lockRows<BodyRow>(manager, `SELECT body FROM comment_annotation WHERE ${where}`, where.parameters);
    if (!row) return undefined;
    const { comments: _copy, ...annotation } = annotationOf(row) as Annotation & { comments?: unknown };
    return annotation;
  }

  /**
   * One comment to change in place (its reactions, its attachments), its thread's annotation
   * locked first as every comment write does; each undefined when missing (no comment is read
   * for a missing thread).
   */
  async lockComment(
    manager: EntityManager,
    place: ThreadPlace & { documentId: string },
    commentId: number,
  ): Promise<{ annotation?: Annotation; comment?: Comment }> {
    const annotation = await this.lockAnnotation(manager, place);
    if (!annotation) return {};
    const [comment] = await this.commentsOf(manager, place, [commentId]);
    return { annotation, comment };
  }

  /** The highest comment id of a thread, 0 when it has none (from the primary key). */
  async lastCommentId(manager: EntityManager, place: ThreadPlace): Promise<number> {
    const where = this.threadConditions(place);
    const [row] = await this.sql.run<{ last: number | string | null }>(manager, `SELECT MAX(comment_id) AS last FROM comment WHERE ${where}`, where.parameters);
    return Number(row?.last ?? 0);
  }

  /** Who has commented in a thread (from `comment_author_idx`, without reading comments). */
  async commenters(manager: EntityManager, place: ThreadPlace): Promise<string[]> {
    const where = this.threadConditions(place);
    const rows = await this.sql.run<{ from_user_id: string }>(manager, `SELECT DISTINCT from_user_id FROM comment WHERE ${where}`, where.parameters);
    return rows.map((row) => row.from_user_id);
  }

  /** A thread's comments of these ids, oldest first, as the caller's unit of work sees them. */
  async commentsOf(manager: EntityManager, place: ThreadPlace, commentIds: number[]): Promise<Comment[]> {
    const where = withCommentIds(this.threadConditions(place), commentIds);
    const rows = await this.sql.run<BodyRow>(manager, `SELECT body FROM comment WHERE ${where} ORDER BY created_at, comment_id`, where.parameters);
    return rows.map((row) => JSON.parse(row.body) as Comment);
  }

  /**
   * Threads of one organization matching `filter`, their annotation rows locked until the
   * transaction ends (so two writes to one thread queue, and a comment id is given out once).
   */
  async lockThreads(manager: EntityManager, apiKeyId: string, organizationId: string | undefined, filter: ThreadFilter): Promise<Thread[]> {
    const where = this.where(apiKeyId, organizationId, filter);
    const rows = await this.sql.lockRows<BodyRow>(manager, `SELECT body FROM comment_annotation WHERE ${where}`, where.parameters);
    return this.withComments(apiKeyId, rows.map(annotationOf), (sql, parameters) => this.sql.run<CommentRow>(manager, sql, parameters));
  }

  /** Deletes threads (their comments and mentions go with them). */
  async deleteThreads(manager: EntityManager, apiKeyId: string, threads: Pick<Annotation, 'organizationId' | 'annotationId'>[]): Promise<void> {
    for (const [organizationId, annotationIds] of groupBy(
      threads,
      (t) => t.organizationId,
      (t) => t.annotationId,
    )) {
      await this.sql.run(
        manager,
        'DELETE FROM comment_annotation WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND annotation_id IN (:...annotationIds)',
        { apiKeyId, organizationId, annotationIds },
      );
    }
  }

  /**
   * Removes what the users wrote (user-data erasure): the threads they started, whole, and their
   * comments in other threads; and their mentions everywhere (the text that tags them is
   * rewritten by the erasure's scrub, `withoutUsersIn`).
   */
  async forgetWriters(manager: EntityManager, apiKeyId: string, userIds: string[], organizationIds: string[] | null): Promise<void> {
    for (const [table, column] of [
      ['comment_annotation', 'from_user_id'],
      ['comment', 'from_user_id'],
      ['comment_mention', 'user_id'],
    ] as const) {
      const where = new Conditions()
        .equal('api_key_id', apiKeyId)
        .among('organization_id', organizationIds ?? undefined)
        .among(column, userIds);
      await this.sql.run(manager, `DELETE FROM ${table} WHERE ${where}`, where.parameters);
    }
  }

  /**
   * Up to `limit` threads of the key (in the given organizations; null: all) whose annotation or
   * one of whose comments holds one of the users' ids in its text, in (organization, annotation)
   * order after `after`, with their comments, locked until the unit of work ends (erasure scrubs
   * and rewrites them). A pre-filter: the caller tests each exactly.
   */
  async lockNaming(
    manager: EntityManager,
    apiKeyId: string,
    userIds: string[],
    organizationIds: string[] | null,
    after: [organizationId: string, annotationId: string] | undefined,
    limit: number,
  ): Promise<Thread[]> {
    const where = this.namingConditions(apiKeyId, userIds).among('organization_id', organizationIds ?? undefined);
    if (after)
      where.add('(organization_id, annotation_id) > (:afterOrganization, :afterAnnotation)', { afterOrganization: after[0], afterAnnotation: after[1] });
    const rows = await this.sql.lockRows<BodyRow>(
      manager,
      `SELECT body FROM comment_annotation WHERE ${where} ORDER BY organization_id, annotation_id LIMIT :limit`,
      { ...where.parameters, limit },
    );
    return this.withComments(apiKeyId, rows.map(annotationOf), (sql, parameters) => this.sql.run<CommentRow>(manager, sql, parameters));
  }

  /** Up to `limit` threads of one organization that may name the user (as `lockNaming`), in annotation order after `after` (the user-data export). */
  async naming(apiKeyId: string, organizationId: string, userId: string, after: string | undefined, limit: number): Promise<Thread[]> {
    const where = this.namingConditions(apiKeyId, [userId]).equal('organization_id', organizationId);
    if (after !== undefined) where.add('annotation_id > :afterAnnotation', { afterAnnotation: after });
    const rows = await this.sql.rows<BodyRow>(`SELECT body FROM comment_annotation WHERE ${where} ORDER BY annotation_id LIMIT :limit`, {
      ...where.parameters,
      limit,
    });
    return this.withComments(apiKeyId, rows.map(annotationOf), (sql, parameters) => this.sql.rows<CommentRow>(sql, parameters));
  }

  /**
   * One keyset page of threads over (last_updated, annotation_id) in `order`, with their
   * comments, cut short once the threads before (annotation and comments) pass `PAGE_BYTES`.
   * A thread whose comments alone pass it (only the page's last can) comes with its first
   * `PAGE_BYTES` of them, and the cursor of the last one given in `partial`, to continue with a
   * thread's comment pages. So a page holds at most about three times `PAGE_BYTES`, whatever
   * the threads' sizes.
   */
  async page(
    apiKeyId: string,
    organizationId: string,
    filter: ThreadFilter,
    order: 'asc' | 'desc',
    after: [number, string] | undefined,
    limit: number,
  ): Promise<{ threads: Thread[]; cut: boolean; partial: Map<string, [createdAt: number, commentId: number]> }> {
    // Several documents (a list, or a folder's) are read one by one (`pageOfEach`).
    const documentsApart = valuesReadApart(filter.documentIds);
    const where = this.where(apiKeyId, organizationId, documentsApart ? { ...filter, documentIds: undefined } : filter);
    if (after)
      where.add(`(last_updated, annotation_id) ${order === 'desc' ? '<' : '>'} (:afterUpdated, :afterId)`, { afterUpdated: after[0], afterId: after[1] });
    const direction = order === 'desc' ? 'DESC' : 'ASC';
    const orderBy = `last_updated ${direction}, annotation_id ${direction}`;
    const read = documentsApart
      ? pageOfEach({
          columns: 'body, last_updated, annotation_id',
          table: 'comment_annotation',
          where,
          column: 'document_id',
          values: documentsApart,
          orderBy,
          limit,
        })
      : { from: `comment_annotation WHERE ${where}`, parameters: where.parameters };
    const found = await this.sql.rowsWithinBytes<BodyRow>({ select: 'body', ...read, orderBy, size: 'LENGTH(body)', limit, maxBytes: PAGE_BYTES });
    // The threads' comments count too: the page ends at the thread whose comments pass the budget.
    // Summed for the page's threads only (grouped, from the comments' rows), after the page is
    // chosen: a sum per thread inside the page query ran for every thread matching the filters.
    const candidates = found.rows.map(annotationOf);
    const commentBytes = await this.commentBytes(apiKeyId, candidates);
    let before = 0;
    let kept = candidates.length;
    for (let i = 0; i < candidates.length; i++) {
      if (i > 0 && before >= PAGE_BYTES) {
        kept = i;
        break;
      }
      before += Buffer.byteLength(found.rows[i]!.body) + (commentBytes.get(candidates[i]!.annotationId) ?? 0);
    }
    const annotations = candidates.slice(0, kept);
    const cut = found.cut || kept < candidates.length;
    const large = new Set(annotations.filter((a) => (commentBytes.get(a.annotationId) ?? 0) > PAGE_BYTES).map((a) => a.annotationId));
    const threads = await this.withComments(
      apiKeyId,
      annotations.filter((a) => !large.has(a.annotationId)),
      (sql, parameters) => this.sql.rows<CommentRow>(sql, parameters),
    );
    const partial = new Map<string, [number, number]>();
    for (const annotation of annotations.filter((a) => large.has(a.annotationId))) {
      const first = await this.commentPage({ apiKeyId, ...annotation }, {}, undefined, Number.MAX_SAFE_INTEGER);
      const comments = first?.comments ?? [];
      const last = comments[comments.length - 1];
      if (first?.cut && last) partial.set(annotation.annotationId, [last.createdAt, last.commentId]);
      threads.push({ ...annotation, comments });
    }
    const byId = new Map(threads.map((t) => [t.annotationId, t]));
    return { threads: annotations.map((a) => byId.get(a.annotationId)!), cut, partial };
  }

  /** The bytes of each thread's comments (by annotation id), one grouped statement for them all. */
  private async commentBytes(apiKeyId: string, annotations: Annotation[]): Promise<Map<string, number>> {
    if (!annotations.length) return new Map();
    const rows = await this.sql.rows<{ organization_id: string; annotation_id: string; bytes: number | string }>(
      `SELECT organization_id, annotation_id, SUM(LENGTH(body)) AS bytes FROM comment
        WHERE api_key_id = :apiKeyId AND organization_id IN (:...organizationIds) AND annotation_id IN (:...annotationIds)
        GROUP BY organization_id, annotation_id`,
      { apiKeyId, organizationIds: [...new Set(annotations.map((a) => a.organizationId))], annotationIds: annotations.map((a) => a.annotationId) },
    );
    return new Map(rows.map((row) => [row.annotation_id, Number(row.bytes)]));
  }

  /**
   * One keyset page of a thread's comments over (created_at, comment_id), of `commentIds` and by
   * `userIds` when given, cut short past `PAGE_BYTES`; undefined when the thread is not in
   * `documentId`.
   */
  async commentPage(
    place: ThreadPlace & { documentId: string },
    filter: { commentIds?: number[]; userIds?: string[] },
    after: [createdAt: number, commentId: number] | undefined,
    limit: number,
  ): Promise<{ comments: Comment[]; cut: boolean } | undefined> {
    const [annotation] = await this.sql.rows<{ document_id: string }>(
      'SELECT document_id FROM comment_annotation WHERE api_key_id = :apiKeyId AND organization_id = :organizationId AND annotation_id = :annotationId',
      { apiKeyId: place.apiKeyId, organizationId: place.organizationId, annotationId: place.annotationId },
    );
    if (!annotation || annotation.document_id !== place.documentId) return undefined;
    const where = withCommentIds(this.threadConditions(place), filter.commentIds).among('from_user_id', filter.userIds);
    if (after) where.add('(created_at, comment_id) > (:afterCreated, :afterComment)', { afterCreated: after[0], afterComment: after[1] });
    const { rows, cut } = await this.sql.rowsWithinBytes<BodyRow>({
      select: 'body',
      from: `comment WHERE ${where}`,
      orderBy: 'created_at, comment_id',
      size: 'LENGTH(body)',
      parameters: where.parameters,
      limit,
      maxBytes: PAGE_BYTES,
    });
    return { comments: rows.map((row) => JSON.parse(row.body) as Comment), cut };
  }

  /** Which of these comment ids the thread holds. */
  async existingCommentIds(place: ThreadPlace, commentIds: number[]): Promise<Set<number>> {
    const where = withCommentIds(this.threadConditions(place), commentIds);
    const rows = await this.sql.rows<{ comment_id: number | string }>(`SELECT comment_id FROM comment WHERE ${where}`, where.parameters);
    return new Set(rows.map((row) => Number(row.comment_id)));
  }

  /**
   * Per document: how many threads (of `statusIds`) there are, and how many of those are among
   * `unreadThreads` (the inbox knows which threads hold a user's unread entries). Long lists are
   * counted in chunks: they are disjoint, so their counts add up.
   */
  async counts(
    apiKeyId: string,
    organizationId: string,
    documentIds: string[],
    statusIds: string[] | undefined,
    unreadThreads: string[],
  ): Promise<Map<string, { total: number; unread: number }>> {
    const where = () =>
      new Conditions().equal('api_key_id', apiKeyId).equal('organization_id', organizationId).among('document_id', documentIds).among('status_id', statusIds);
    const counts = new Map<string, { total: number; unread: number }>();
    const totals = where();
    for (const row of await this.sql.rows<{ document_id: string; total: number | string }>(
      `SELECT document_id, COUNT(*) AS total FROM comment_annotation WHERE ${totals} GROUP BY document_id`,
      totals.parameters,
    )) {
      counts.set(row.document_id, { total: Number(row.total), unread: 0 });
    }
    for (const chunk of chunksOf(unreadThreads)) {
      const unread = where().among('annotation_id', chunk);
      for (const row of await this.sql.rows<{ document_id: string; unread: number | string }>(
        `SELECT document_id, COUNT(*) AS unread FROM comment_annotation WHERE ${unread} GROUP BY document_id`,
        unread.parameters,
      )) {
        counts.get(row.document_id)!.unread += Number(row.unread);
      }
    }
    return counts;
  }

  /** Threads whose annotation's text, or a comment's, holds one of the users' ids, or that mention one of them (a pre-filter). */
  private namingConditions(apiKeyId: string, userIds: string[]): Conditions {
    const annotationText = namingFilter('body', userIds);
    const commentText = namingFilter('c.body', userIds);
    const sameThread = (alias: string) =>
      `${alias}.api_key_id = comment_annotation.api_key_id AND ${alias}.organization_id = comment_annotation.organization_id`;
    return new Conditions().equal('api_key_id', apiKeyId).add(
      `(${annotationText.sql}
          OR annotation_id IN (SELECT c.annotation_id FROM comment c WHERE ${sameThread('c')} AND ${commentText.sql})
          OR annotation_id IN (SELECT m.annotation_id FROM comment_mention m WHERE ${sameThread('m')} AND m.user_id IN (:...mentionedUsers)))`,
      { ...annotationText.parameters, ...commentText.parameters, mentionedUsers: userIds },
    );
  }

  private threadConditions(place: ThreadPlace): Conditions {
    return new Conditions().equal('api_key_id', place.apiKeyId).equal('organization_id', place.organizationId).equal('annotation_id', place.annotationId);
  }

  private where(apiKeyId: string, organizationId: string | undefined, filter: ThreadFilter): Conditions {
    const where = new Conditions()
      .equal('api_key_id', apiKeyId)
      .equal('organization_id', organizationId)
      .among('document_id', filter.documentIds)
      .among('annotation_id', filter.annotationIds)
      .among('location_id', filter.locationIds)
      .among('from_user_id', filter.userIds)
      .among('status_id', filter.statusIds)
      .equal('resolved_by', filter.resolvedBy)
      .equal('agent_id', filter.agentId)
      .equal('execution_id', filter.executionId)
      .equal('agent_source', filter.agentSource);
    if (filter.agentThreads === 'agent') where.add('agent_id IS NOT NULL', {});
    if (filter.agentThreads === 'pending') where.add("agent_id IS NOT NULL AND suggestion_status = 'pending'", {});
    if (filter.agentFieldsAnyOf) {
      const { agentIds, executionIds, agentSources } = filter.agentFieldsAnyOf;
      const anyOf = [
        ['agent_id', 'fieldAgentIds', agentIds],
        ['execution_id', 'fieldExecutionIds', executionIds],
        ['agent_source', 'fieldAgentSources', agentSources],
      ] as const;
      const used = anyOf.filter(([, , values]) => values.length);
      where.add(
        `agent_id IS NOT NULL AND (${used.map(([column, name]) => `${column} IN (:...${name})`).join(' OR ')})`,
        Object.fromEntries(used.map(([, name, values]) => [name, values])),
      );
    }
    if (filter.mentionedUserIds) {
      // Of one organization, the mentions are read once (a list the threads are looked up in);
      // tied to each thread's organization instead, SQLite read them again for every thread it
      // walked: 2.8 s for a page of an organization of 100k threads, 14 ms this way.
      const sameOrganization = organizationId === undefined ? 'comment_annotation.organization_id' : ':mentionOrganization';
      where.add(
        `annotation_id IN (SELECT m.annotation_id FROM comment_mention m WHERE m.api_key_id = :mentionKey AND m.organization_id = ${sameOrganization} AND m.user_id IN (:...mentionedUserIds))`,
        { mentionKey: apiKeyId, mentionedUserIds: filter.mentionedUserIds, ...(organizationId === undefined ? {} : { mentionOrganization: organizationId }) },
      );
    }
    if (filter.agentUrls) {
      // The page an agent thread is stamped for is its root comment's `agent.url`, kept in the body.
      const urls = filter.agentUrls.map((url, i) => [`agentUrl${i}`, `%"url":${JSON.stringify(url)}%`] as const);
      where.add(`agent_id IS NOT NULL AND (${urls.map(([name]) => `body LIKE :${name}`).join(' OR ')})`, Object.fromEntries(urls));
    }
    if (filter.updatedAfter !== undefined) where.add('last_updated > :updatedAfter', { updatedAfter: filter.updatedAfter });
    if (filter.updatedBefore !== undefined) where.add('last_updated < :updatedBefore', { updatedBefore: filter.updatedBefore });
    if (filter.createdAfter !== undefined) where.add('created_at > :createdAfter', { createdAfter: filter.createdAfter });
    if (filter.createdBefore !== undefined) where.add('created_at < :createdBefore', { createdBefore: filter.createdBefore });
    return where;
  }

  /** The annotations with their comments (oldest first), read in one statement. */
  private async withComments(
    apiKeyId: string,
    annotations: Annotation[],
    read: (sql: string, parameters: Parameters) => Promise<CommentRow[]>,
  ): Promise<Thread[]> {
    if (!annotations.length) return [];
    const threads = annotations.map((a): Thread => ({ ...a, comments: [] }));
    const byKey = new Map(threads.map((t) => [`${t.organizationId}\u0000${t.annotationId}`, t]));
    const organizationIds = [...new Set(threads.map((t) => t.organizationId))];
    const rows = await read(
      'SELECT organization_id, annotation_id, body FROM comment WHERE api_key_id = :apiKeyId AND organization_id IN (:...organizationIds) AND annotation_id IN (:...annotationIds) ORDER BY created_at, comment_id',
      { apiKeyId, organizationIds, annotationIds: threads.map((t) => t.annotationId) },
    );
    for (const row of rows) byKey.get(`${row.organization_id}\u0000${row.annotation_id}`)?.comments.push(JSON.parse(row.body) as Comment);
    return threads;
  }
}

/** `comment_id IN (...)` when ids are given (comment ids are numbers, which `Conditions.among` does not take). */
function withCommentIds(where: Conditions, commentIds: number[] | undefined): Conditions {
  return commentIds === undefined ? where : where.add('comment_id IN (:...commentIds)', { commentIds: commentIds.length ? commentIds : [-1] });
}

interface CommentRow {
  organization_id: string;
  annotation_id: string;
  body: string;
}

/** A stored annotation. Rows written before its comments were left out of the body may still hold a copy of them: `withComments` replaces it. */
function annotationOf(row: BodyRow): Annotation {
  return JSON.parse(row.body) as Annotation;
}

/** The `body` column: the annotation without its comments, which are rows of their own. */
function annotationBody(annotation: Annotation | Thread): string {
  const { comments: _comments, ...fields } = annotation as Partial<Thread>;
  return JSON.stringify(fields);
}

/** An insert of annotation rows (upserting: an existing id is overwritten). */
function annotationRows(apiKeyId: string, annotations: Annotation[]): Insert {
  return {
    table: 'comment_annotation',
    columns: ANNOTATION_COLUMNS,
    rows: annotations.map((a) => [
      apiKeyId,
      a.organizationId,
      a.annotationId,
      a.documentId,
      a.location?.id ?? null,
      a.status.id,
      a.status.type,
      a.from.userId,
      a.assignedTo?.userId ?? null,
      a.resolvedByUserId ?? null,
      a.type,
      a.agent?.agentId ?? null,
      a.agent?.agentSource ?? null,
      a.agent?.executionId ?? null,
      a.type === 'suggestion' ? (a.suggestion?.status ?? 'pending') : null,
      a.createdAt,
      a.lastUpdated,
      annotationBody(a),
    ]),
    conflict: { target: ['api_key_id', 'organization_id', 'annotation_id'], update: ANNOTATION_COLUMNS.slice(3) },
  };
}

/** The inserts of threads' comments (upserting) and of who each tags. */
function commentRows(apiKeyId: string, threads: readonly { organizationId: string; annotationId: string; comments: Comment[] }[]): Insert[] {
  return [
    {
      table: 'comment',
      columns: COMMENT_COLUMNS,
      rows: threads.flatMap(({ organizationId, annotationId, comments }) =>
        comments.map((c) => [apiKeyId, organizationId, annotationId, c.commentId, c.from.userId, c.createdAt, c.lastUpdated, JSON.stringify(c)]),
      ),
      conflict: { target: ['api_key_id', 'organization_id', 'annotation_id', 'comment_id'], update: COMMENT_COLUMNS.slice(4) },
    },
    {
      table: 'comment_mention',
      columns: MENTION_COLUMNS,
      rows: threads.flatMap(({ organizationId, annotationId, comments }) =>
        comments.flatMap((c) => mentionsOf(c).map((userId) => [apiKeyId, organizationId, annotationId, c.commentId, userId])),
      ),
    },
  ];
}
