import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newSortableId } from '../common/ids.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { AppConfig } from '../config/app-config.js';
import { Transactions } from '../database/transactions.js';
import { CommentEvents, commentActivity, triggersOf } from './comment-events.js';
import { CommentStore, threadPlaceOf, type ThreadPlace } from './comment-store.js';
import type { AddReactionRequest, DeleteReactionRequest } from './dto/comments.dto.js';
import { reactionJson, type Annotation, type Comment, type Reaction } from './threads.js';
import { CommentErrors } from './comments.errors.js';

/**
 * Reactions to comments (ours: upstream's REST API reads them but has no way to add one): each
 * is a user's icon on a comment, kept in the comment's record, so every read of the comment
 * answers them (`reactionAnnotationIds`, `reactionAnnotations`) and erasure and deletes follow
 * the comment. A write locks the thread's annotation, as every comment write does, so
 * concurrent reactions to one comment take turns and none is lost. Adding one a user has, or
 * removing one they lack, changes nothing and sends no event; otherwise `comment.reaction_add`
 * / `comment.reaction_delete` go where the triggers ask, like any comment event, involving the
 * comment's author (and the thread's).
 */
@Injectable()
export class ReactionsService {
  constructor(
    private readonly store: CommentStore,
    private readonly events: CommentEvents,
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
  ) {}

  async add(principal: ApiKeyPrincipal, request: AddReactionRequest): Promise<{ annotationId: string; added: boolean }> {
    const place = threadPlaceOf(principal.apiKeyId, request);
    const now = Date.now();
    return this.transactions.run(async (manager) => {
      const { annotation, comment } = await this.lockedComment(manager, place, request);
      const reactions = comment.reactions ?? [];
      const held = reactions.find((reaction) => reaction.icon === request.icon && reaction.userId === request.from.userId);
      if (held) return { annotationId: held.annotationId, added: false };
      if (reactions.length >= this.config.commentMaxReactions) throw CommentErrors.tooManyReactions(this.config.commentMaxReactions);
      const reaction: Reaction = { annotationId: newSortableId('rxn_'), icon: request.icon, userId: request.from.userId, from: request.from, createdAt: now };
      await this.write(manager, place, annotation, { ...comment, reactions: [...reactions, reaction] }, 'comment.reaction_add', reaction, request, now);
      return { annotationId: reaction.annotationId, added: true };
    });
  }

  async delete(principal: ApiKeyPrincipal, request: DeleteReactionRequest): Promise<{ deleted: boolean }> {
    const place = threadPlaceOf(principal.apiKeyId, request);
    const now = Date.now();
    return this.transactions.run(async (manager) => {
      const { annotation, comment } = await this.lockedComment(manager, place, request);
      const reactions = comment.reactions ?? [];
      const held = reactions.find((reaction) => reaction.icon === request.icon && reaction.userId === request.userId);
      if (!held) return { deleted: false };
      const left = reactions.filter((reaction) => reaction !== held);
      await this.write(manager, place, annotation, { ...comment, reactions: left }, 'comment.reaction_delete', held, request, now);
      return { deleted: true };
    });
  }

  /** The comment, its thread's annotation locked first; NOT_FOUND for a missing thread or comment. */
  private async lockedComment(
    manager: EntityManager,
    place: ThreadPlace,
    request: { documentId: string; commentId: number },
  ): Promise<{ annotation: Annotation; comment: Comment }> {
    const { annotation, comment } = await this.store.lockComment(manager, { ...place, documentId: request.documentId }, request.commentId);
    if (!annotation) throw CommentErrors.threadNotFound();
    if (!comment) throw CommentErrors.commentNotFound();
    return { annotation, comment };
  }

  /** Stores the comment with its reactions changed (not an edit: `lastUpdated` stays) and publishes the event. */
  private async write(
    manager: EntityManager,
    place: ThreadPlace,
    annotation: Annotation,
    comment: Comment,
    actionType: string,
    reaction: Reaction,
    triggers: { triggerActivities?: boolean; triggerNotification?: boolean },
    now: number,
  ): Promise<void> {
    await this.store.putComments(manager, place.apiKeyId, place.organizationId, place.annotationId, [comment], { fresh: false });
    const { reactions: _all, ...commentAlone } = comment;
    const activity = commentActivity(place.apiKeyId, actionType, reaction.from, annotation, [comment.from.userId], now, {
      ...commentAlone,
      reaction: reactionJson(reaction),
    } as Comment);
    await this.events.publish(manager, place.apiKeyId, [activity], triggersOf(triggers));
  }
}
