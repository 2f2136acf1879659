import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Transactions } from '../database/transactions.js';
import { DocumentsService } from '../directory/documents.service.js';
import { CommentEvents, threadActivity, triggersOf } from './comment-events.js';
import { CommentStore } from './comment-store.js';
import type { AddCommentsRequest, DeleteCommentsRequest, GetCommentsRequest, UpdateCommentsRequest } from './dto/comments.dto.js';
import { newComments } from './new-comments.js';
import { commentJson, type Thread } from './threads.js';

export const CommentMessages = {
  updated: 'Updated successfully',
  deleted: 'Deleted successfully',
  notFound: 'Not found',
  threadNotFound: 'Annotation not found.',
} as const;

type CommentOutcome = { success: boolean; id: number; message: string };

/** Upstream's comments operations (`v2/commentannotations/comments/...`), on one thread each. */
@Injectable()
export class CommentsService {
  constructor(
    private readonly store: CommentStore,
    private readonly events: CommentEvents,
    private readonly transactions: Transactions,
    private readonly documents: DocumentsService,
  ) {}

  /** Adds comments to a thread; its row is locked meanwhile, so concurrent adds never hand out one id twice. */
  async add(principal: ApiKeyPrincipal, request: AddCommentsRequest): Promise<number[]> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    const now = Date.now();
    return this.transactions.run(async (manager) => {
      await this.documents.requirePlace(manager, apiKeyId, request);
      const thread = await this.thread(manager, apiKeyId, request);
      const comments = newComments(
        request.commentData,
        thread.comments.map((c) => c.commentId),
        now,
      );
      await this.store.putComments(manager, apiKeyId, organizationId, thread.annotationId, comments, { fresh: false });
      const after: Thread = {
        ...thread,
        comments: [...thread.comments.filter((c) => !comments.some((n) => n.commentId === c.commentId)), ...comments],
        lastUpdated: now,
      };
      await this.store.putAnnotations(manager, apiKeyId, [after]);
      const events = comments.map((comment, i) => ({
        activity: () =>
          threadActivity(apiKeyId, 'comment.add', comment.from, { ...thread, comments: [...thread.comments, ...comments.slice(0, i)] }, now, comment),
        triggers: triggersOf(request.commentData[i]!),
      }));
      await this.events.publishEach(manager, apiKeyId, events);
      return comments.map((c) => c.commentId);
    });
  }

  /** A thread's comments (those of `commentIds` and by `userIds` when given); null for each requested id that does not exist. */
  async get(principal: ApiKeyPrincipal, request: GetCommentsRequest): Promise<unknown[]> {
    const comments = await this.store.comments(principal.apiKeyId, request.organizationId, request.documentId, request.annotationId, request.commentIds);
    if (!comments) throw new ApiError('NOT_FOUND', CommentMessages.threadNotFound);
    const kept = request.userIds ? comments.filter((c) => request.userIds!.includes(c.from.userId)) : comments;
    const found = new Set(comments.map((c) => c.commentId));
    return [...kept.map(commentJson), ...(request.commentIds ?? []).filter((id) => !found.has(id)).map(() => null)];
  }

  /** Changes the named comments' fields; each id not in the thread fails as its item. */
  async update(principal: ApiKeyPrincipal, request: UpdateCommentsRequest): Promise<Record<string, CommentOutcome>> {
    const { apiKeyId } = principal;
    const now = Date.now();
    return this.transactions.run(async (manager) => {
      const thread = await this.thread(manager, apiKeyId, request);
      const changed = thread.comments
        .filter((c) => request.commentIds.includes(c.commentId))
        .map((c) => ({ ...c, ...request.updatedData, edited: true, lastUpdated: now }));
      await this.store.putComments(manager, apiKeyId, request.organizationId, thread.annotationId, changed, { fresh: false });
      const after: Thread = { ...thread, comments: thread.comments.map((c) => changed.find((n) => n.commentId === c.commentId) ?? c), lastUpdated: now };
      if (changed.length) await this.store.putAnnotations(manager, apiKeyId, [after]);
      const activities = changed.map((comment) => threadActivity(apiKeyId, 'comment.update', comment.from, after, now, comment));
      await this.events.publish(manager, apiKeyId, activities, triggersOf(request));
      return outcomes(request.commentIds, new Set(changed.map((c) => c.commentId)), CommentMessages.updated);
    });
  }

  /** Deletes the named comments (all of the thread's without `commentIds`); the thread itself stays. */
  async delete(principal: ApiKeyPrincipal, request: DeleteCommentsRequest): Promise<Record<string, CommentOutcome>> {
    const { apiKeyId } = principal;
    const now = Date.now();
    return this.transactions.run(async (manager) => {
      const thread = await this.thread(manager, apiKeyId, request);
      const deleted = new Set(await this.store.deleteComments(manager, apiKeyId, request.organizationId, thread.annotationId, request.commentIds));
      const after: Thread = { ...thread, comments: thread.comments.filter((c) => !deleted.has(c.commentId)), lastUpdated: now };
      if (deleted.size) await this.store.putAnnotations(manager, apiKeyId, [after]);
      const activities = thread.comments
        .filter((c) => deleted.has(c.commentId))
        .map((comment) => threadActivity(apiKeyId, 'comment.delete', request.actionUser ?? comment.from, after, now, comment));
      await this.events.publish(manager, apiKeyId, activities, triggersOf(request));
      return outcomes(request.commentIds ?? [...deleted], deleted, CommentMessages.deleted);
    });
  }

  /** The named thread of the named document, locked; NOT_FOUND when there is none. */
  private async thread(manager: EntityManager, apiKeyId: string, place: { organizationId: string; documentId: string; annotationId: string }): Promise<Thread> {
    const [thread] = await this.store.lockThreads(manager, apiKeyId, place.organizationId, {
      documentIds: [place.documentId],
      annotationIds: [place.annotationId],
    });
    if (!thread) throw new ApiError('NOT_FOUND', CommentMessages.threadNotFound);
    return thread;
  }
}

function outcomes(ids: number[], done: Set<number>, message: string): Record<string, CommentOutcome> {
  return Object.fromEntries(
    ids.map((id) => [String(id), done.has(id) ? { success: true, id, message } : { success: false, id, message: CommentMessages.notFound }]),
  );
}
