import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { DocumentsService } from '../directory/documents.service.js';
import { asksAnything, CommentEvents, commentActivity, triggersOf } from './comment-events.js';
import { CommentStore, threadPlaceOf, type ThreadPlace } from './comment-store.js';
import type { AddCommentsRequest, DeleteCommentsRequest, GetCommentsRequest, GetCommentsV1Request, UpdateCommentsRequest } from './dto/comments.dto.js';
import { newComments } from './new-comments.js';
import { commentJson, type Annotation } from './threads.js';
import { everyPage, PageTokens, PAGE_SIZE } from '../common/paging.js';
import { CommentErrors, CommentMessages } from './comments.errors.js';

const OPERATION_GET = 'commentannotations/comments/get';

type CommentOutcome = { success: boolean; id: number; message: string };

/** Upstream's comments operations (`v2/commentannotations/comments/...`), on one thread each. */
@Injectable()
export class CommentsService {
  constructor(
    private readonly store: CommentStore,
    private readonly events: CommentEvents,
    private readonly transactions: Transactions,
    private readonly documents: DocumentsService,
    private readonly pageTokens: PageTokens,
  ) {}

  /**
   * Adds comments to a thread; its annotation row is locked meanwhile, so concurrent adds never
   * hand out one id twice. Reads the annotation, the thread's highest comment id and, when an
   * event is asked for, who has commented: the same work whatever the thread's size.
   */
  async add(principal: ApiKeyPrincipal, request: AddCommentsRequest): Promise<number[]> {
    const place = threadPlaceOf(principal.apiKeyId, request);
    const now = Date.now();
    return this.transactions.run(async (manager) => {
      await this.documents.requirePlace(manager, place.apiKeyId, request);
      const annotation = await this.annotation(manager, place, request.documentId);
      const comments = newComments(request.commentData, await this.store.lastCommentId(manager, place), now);
      const triggers = request.commentData.map(triggersOf);
      const commenters = triggers.some(asksAnything) ? await this.store.commenters(manager, place) : [];
      await this.store.putComments(manager, place.apiKeyId, place.organizationId, place.annotationId, comments, { fresh: false });
      await this.store.putAnnotations(manager, place.apiKeyId, [{ ...annotation, lastUpdated: now }]);
      const events = comments.map((comment, i) => ({
        activity: () =>
          commentActivity(
            place.apiKeyId,
            'comment.add',
            comment.from,
            annotation,
            [...commenters, ...comments.slice(0, i).map((c) => c.from.userId)],
            now,
            comment,
          ),
        triggers: triggers[i]!,
      }));
      await this.events.publishEach(manager, place.apiKeyId, events);
      return comments.map((c) => c.commentId);
    });
  }

  /**
   * One page of a thread's comments (those of `commentIds` and by `userIds` when given), oldest
   * first, cut short by `pageSize` or `PAGE_BYTES`; the last page ends with null for each
   * requested id that does not exist.
   */
  async get(principal: ApiKeyPrincipal, request: GetCommentsRequest): Promise<{ data: unknown[]; nextPageToken?: string }> {
    const place = threadPlaceOf(principal.apiKeyId, request);
    const pageSize = request.pageSize ?? PAGE_SIZE.default;
    const filters = pageFilters(place, request.documentId, request);
    const after = request.pageToken ? this.pageTokens.decode<[number, number]>(place.apiKeyId, OPERATION_GET, filters, request.pageToken) : undefined;
    const found = await this.store.commentPage({ ...place, documentId: request.documentId }, request, after, pageSize + 1);
    if (!found) throw CommentErrors.threadNotFound();
    const page = this.pageTokens.page(found.comments, pageSize, place.apiKeyId, OPERATION_GET, filters, (last) => [last.createdAt, last.commentId], found.cut);
    const missing = page.next === undefined && request.commentIds ? await this.missingIds(place, request.commentIds) : [];
    return { data: [...page.items.map(commentJson), ...missing.map(() => null)], nextPageToken: page.next };
  }

  /** v1 get: every page of the thread's comments, from the one `first` opens (default the first). */
  async getEveryPage(principal: ApiKeyPrincipal, request: GetCommentsV1Request, first?: string): Promise<unknown[]> {
    return everyPage((pageToken) => this.get(principal, { ...request, pageToken }).then((page) => ({ items: page.data, next: page.nextPageToken })), first);
  }

  /** The `pageToken` of the page after the comment at `cursor`, of all the thread's comments (annotations get hands it out for a thread it cut short). */
  pageToken(place: ThreadPlace, documentId: string, cursor: [createdAt: number, commentId: number]): string {
    return this.pageTokens.encode(place.apiKeyId, OPERATION_GET, pageFilters(place, documentId, {}), cursor);
  }

  /** Changes the named comments' fields; each id not in the thread fails as its item. */
  async update(principal: ApiKeyPrincipal, request: UpdateCommentsRequest): Promise<Record<string, CommentOutcome>> {
    const place = threadPlaceOf(principal.apiKeyId, request);
    const now = Date.now();
    return this.transactions.run(async (manager) => {
      const annotation = await this.annotation(manager, place, request.documentId);
      const changed = (await this.store.commentsOf(manager, place, request.commentIds)).map((c) => ({
        ...c,
        ...request.updatedData,
        edited: true,
        lastUpdated: now,
      }));
      await this.store.putComments(manager, place.apiKeyId, place.organizationId, place.annotationId, changed, { fresh: false });
      if (changed.length) await this.store.putAnnotations(manager, place.apiKeyId, [{ ...annotation, lastUpdated: now }]);
      const triggers = triggersOf(request);
      const commenters = changed.length && asksAnything(triggers) ? await this.store.commenters(manager, place) : [];
      const activities = changed.map((comment) => commentActivity(place.apiKeyId, 'comment.update', comment.from, annotation, commenters, now, comment));
      await this.events.publish(manager, place.apiKeyId, activities, triggers);
      return outcomes(request.commentIds, new Set(changed.map((c) => c.commentId)), CommentMessages.updated);
    });
  }

  /** Deletes the named comments (all of the thread's without `commentIds`); the thread itself stays. */
  async delete(principal: ApiKeyPrincipal, request: DeleteCommentsRequest): Promise<Record<string, CommentOutcome>> {
    const place = threadPlaceOf(principal.apiKeyId, request);
    const now = Date.now();
    return this.transactions.run(async (manager) => {
      const annotation = await this.annotation(manager, place, request.documentId);
      const triggers = triggersOf(request);
      const deleted = await this.store.deleteComments(manager, place, request.commentIds, asksAnything(triggers));
      if (deleted.ids.length) await this.store.putAnnotations(manager, place.apiKeyId, [{ ...annotation, lastUpdated: now }]);
      const commenters = deleted.comments.length ? await this.store.commenters(manager, place) : [];
      const activities = deleted.comments.map((comment) =>
        commentActivity(place.apiKeyId, 'comment.delete', request.actionUser ?? comment.from, annotation, commenters, now, comment),
      );
      await this.events.publish(manager, place.apiKeyId, activities, triggers);
      return outcomes(request.commentIds ?? deleted.ids, new Set(deleted.ids), CommentMessages.deleted);
    });
  }

  /** The named thread's annotation, locked; NOT_FOUND when the document holds no such thread. */
  private async annotation(manager: EntityManager, place: ThreadPlace, documentId: string): Promise<Annotation> {
    const annotation = await this.store.lockAnnotation(manager, { ...place, documentId });
    if (!annotation) throw CommentErrors.threadNotFound();
    return annotation;
  }

  private async missingIds(place: ThreadPlace, commentIds: number[]): Promise<number[]> {
    const existing = await this.store.existingCommentIds(place, commentIds);
    return commentIds.filter((id) => !existing.has(id));
  }
}

/** What a comment page token is bound to: the thread and the filters of the pages it continues. */
function pageFilters(place: ThreadPlace, documentId: string, request: { commentIds?: number[]; userIds?: string[] }): unknown {
  const { apiKeyId, organizationId, annotationId } = place;
  return { apiKeyId, organizationId, annotationId, documentId, commentIds: request.commentIds ?? null, userIds: request.userIds ?? null };
}

function outcomes(ids: number[], done: Set<number>, message: string): Record<string, CommentOutcome> {
  return Object.fromEntries(
    ids.map((id) => [String(id), done.has(id) ? { success: true, id, message } : { success: false, id, message: CommentMessages.notFound }]),
  );
}
