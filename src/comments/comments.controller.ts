import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import { ItemResultsResult } from '../common/openapi-responses.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { CommentAnnotationsService } from './comment-annotations.service.js';
import { CommentsService } from './comments.service.js';
import { ReactionsService } from './reactions.service.js';
import {
  AddAnnotationsRequest,
  AddCommentsRequest,
  AddReactionRequest,
  CountAnnotationsRequest,
  DeleteAnnotationsRequest,
  DeleteCommentsRequest,
  DeleteReactionRequest,
  GetAnnotationsRequest,
  GetAnnotationsV1Request,
  GetCommentsRequest,
  GetCommentsV1Request,
  UpdateAnnotationsRequest,
  UpdateCommentsRequest,
} from './dto/comments.dto.js';
import {
  AnnotationCountsResult,
  AnnotationsAddedResult,
  AnnotationsResult,
  CommentIdsResult,
  CommentOutcomesResult,
  CommentsResult,
  ReactionAddedResult,
  ReactionDeletedResult,
} from './dto/comments.response.js';
import { DirectoryErrors } from '../directory/directory.errors.js';
import { CommentErrors } from './comments.errors.js';

/** `COMMENT_MAX_REACTIONS` by default, for the OpenAPI example of its error. */
const DEFAULT_MAX_REACTIONS = 500;

/** Comment threads (upstream's `v2/commentannotations`, and its `v1` paths), and reactions to comments (ours). */
@ApiTags('comments')
@Controller()
export class CommentsController {
  constructor(
    private readonly annotations: CommentAnnotationsService,
    private readonly comments: CommentsService,
    private readonly reactions: ReactionsService,
  ) {}

  @Operation('/v2/commentannotations/add', {
    summary: 'Adds comment threads to a document, each with its first comments.',
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      commentAnnotations: [
        {
          annotationId: 'ann-launch-date',
          location: { id: 'section-q3', locationName: 'Q3 milestones' },
          priority: { id: 'P1', name: 'High' },
          commentData: [
            {
              commentId: 1,
              commentText: '@Bob Chen can we move the launch to September?',
              commentHtml: '<p>{{user-bob}} can we move the launch to September?</p>',
              from: { userId: 'user-alice', name: 'Alice Martin', email: 'alice@acme.example' },
              taggedUserContacts: [{ userId: 'user-bob', contact: { userId: 'user-bob', name: 'Bob Chen', email: 'bob@acme.example' }, text: '@Bob Chen' }],
            },
          ],
        },
        { annotationId: 'ann-typo', commentData: [{ commentText: 'Typo in the title.', from: { userId: 'user-carol', name: 'Carol Diaz' } }] },
      ],
    },
    aliasExamples: {
      '/v1/commentannotations/add': {
        organizationId: 'org-acme',
        documentId: 'doc-roadmap',
        commentAnnotations: [{ annotationId: 'ann-legacy-note', commentData: [{ commentText: 'Imported from the old tool.', from: { userId: 'user-bob' } }] }],
      },
    },

    aliases: ['/v1/commentannotations/add'],
    auth: 'apiKey',
    message: 'Comment Annotation(s) added successfully.',
    response: AnnotationsAddedResult,
    errors: [DirectoryErrors.organizationMissing(), DirectoryErrors.documentMissing()],
  })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddAnnotationsRequest): ReturnType<CommentAnnotationsService['add']> {
    return this.annotations.add(caller, data);
  }

  @Operation('/v1/commentannotations/get', {
    summary: "Reads a document's comment threads with all their comments, all at once (v1).",
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', annotationIds: ['ann-launch-date'] },
    auth: 'apiKey',
    message: 'Annotations fetched successfully.',
    response: AnnotationsResult,
  })
  getV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetAnnotationsV1Request): Promise<unknown[]> {
    return this.annotations.getEveryPage(caller, data);
  }

  @Operation('/v2/commentannotations/get', {
    summary: 'Reads comment threads with their comments, filtered, a page at a time.',
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', mentionedUserIds: ['user-bob'] },
    auth: 'apiKey',
    message: 'Annotation(s) fetched successfully.',
    result: 'fields',
    response: AnnotationsResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetAnnotationsRequest): ReturnType<CommentAnnotationsService['get']> {
    return this.annotations.get(caller, data);
  }

  @Operation('/v2/commentannotations/update', {
    summary: 'Changes comment threads: status, priority, assignee, location, context; or replaces a user in them.',
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      annotationIds: ['ann-launch-date'],
      updatedData: { status: { id: 'IN_PROGRESS', name: 'In progress', type: 'ongoing' }, assignedTo: { userId: 'user-bob', name: 'Bob Chen' } },
      actionUser: { userId: 'user-alice' },
    },

    aliases: ['/v1/commentannotations/update'],
    auth: 'apiKey',
    message: 'Annotations updated successfully.',
    response: ItemResultsResult,
  })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateAnnotationsRequest): ReturnType<CommentAnnotationsService['update']> {
    return this.annotations.update(caller, data);
  }

  @Operation('/v2/commentannotations/delete', {
    summary: 'Deletes comment threads with their comments.',
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', annotationIds: ['ann-typo'] },
    aliasExamples: { '/v1/commentannotations/delete': { organizationId: 'org-acme', documentId: 'doc-roadmap', annotationIds: ['ann-legacy-note'] } },

    aliases: ['/v1/commentannotations/delete'],
    auth: 'apiKey',
    message: 'Annotations deleted successfully.',
    response: ItemResultsResult,
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteAnnotationsRequest): ReturnType<CommentAnnotationsService['delete']> {
    return this.annotations.delete(caller, data);
  }

  @Operation('/v2/commentannotations/count/get', {
    summary: "Counts each document's comment threads, and those unread by a user.",
    example: { organizationId: 'org-acme', documentIds: ['doc-roadmap'], userId: 'user-bob' },

    aliases: ['/v1/commentannotations/count/get'],
    auth: 'apiKey',
    message: 'Comment count retrieved successfully.',
    response: AnnotationCountsResult,
  })
  count(@ApiKeyPrincipal() caller: Caller, @RequestData() data: CountAnnotationsRequest): ReturnType<CommentAnnotationsService['count']> {
    return this.annotations.count(caller, data);
  }

  @Operation('/v2/commentannotations/comments/add', {
    summary: 'Adds comments to a comment thread.',
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      annotationId: 'ann-launch-date',
      commentData: [{ commentId: 2, commentText: 'September works if QA signs off.', from: { userId: 'user-bob', name: 'Bob Chen' } }],
    },
    aliasExamples: {
      '/v1/commentannotations/comments/add': {
        organizationId: 'org-acme',
        documentId: 'doc-roadmap',
        annotationId: 'ann-launch-date',
        commentData: [{ commentId: 3, commentText: '+1', from: { userId: 'user-carol' } }],
      },
    },

    aliases: ['/v1/commentannotations/comments/add'],
    auth: 'apiKey',
    message: 'Comment(s) added successfully.',
    response: CommentIdsResult,
    errors: [DirectoryErrors.organizationMissing(), DirectoryErrors.documentMissing(), CommentErrors.threadNotFound()],
  })
  addComments(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddCommentsRequest): ReturnType<CommentsService['add']> {
    return this.comments.add(caller, data);
  }

  @Operation('/v1/commentannotations/comments/get', {
    summary: "Reads a thread's comments, all at once (v1).",
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', annotationId: 'ann-launch-date' },

    auth: 'apiKey',
    message: 'Comments(s) retrieved successfully.',
    response: CommentsResult,
    errors: [CommentErrors.threadNotFound()],
  })
  getCommentsV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetCommentsV1Request): Promise<unknown[]> {
    return this.comments.getEveryPage(caller, data);
  }

  @Operation('/v2/commentannotations/comments/get', {
    summary: "Reads a thread's comments, oldest first, a page at a time.",
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', annotationId: 'ann-launch-date', commentIds: [1, 2] },

    auth: 'apiKey',
    message: 'Comments retrieved successfully.',
    result: 'fields',
    response: CommentsResult,
    errors: [CommentErrors.threadNotFound()],
  })
  getComments(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetCommentsRequest): ReturnType<CommentsService['get']> {
    return this.comments.get(caller, data);
  }

  @Operation('/v2/commentannotations/comments/update', {
    summary: 'Changes comments of a thread (text, HTML, mentions, attachments, context).',
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      annotationId: 'ann-launch-date',
      commentIds: [2],
      updatedData: { commentText: 'September works once QA signs off.' },
    },

    aliases: ['/v1/commentannotations/comments/update'],
    auth: 'apiKey',
    message: 'Comment updated successfully.',
    response: CommentOutcomesResult,
    errors: [CommentErrors.threadNotFound()],
  })
  updateComments(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateCommentsRequest): ReturnType<CommentsService['update']> {
    return this.comments.update(caller, data);
  }

  @Operation('/v2/commentannotations/comments/delete', {
    summary: 'Deletes comments of a thread.',
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', annotationId: 'ann-launch-date', commentIds: [3] },
    aliasExamples: {
      '/v1/commentannotations/comments/delete': { organizationId: 'org-acme', documentId: 'doc-roadmap', annotationId: 'ann-launch-date', commentIds: [2] },
    },

    aliases: ['/v1/commentannotations/comments/delete'],
    auth: 'apiKey',
    message: 'Comments(s) deleted successfully.',
    response: CommentOutcomesResult,
    errors: [CommentErrors.threadNotFound()],
  })
  deleteComments(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteCommentsRequest): ReturnType<CommentsService['delete']> {
    return this.comments.delete(caller, data);
  }

  @Operation('/v2/commentannotations/comments/reactions/add', {
    summary: "Adds a user's reaction (an emoji or short name) to a comment.",
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      annotationId: 'ann-launch-date',
      commentId: 1,
      icon: '👍',
      from: { userId: 'user-bob', name: 'Bob Chen' },
    },

    auth: 'apiKey',
    message: 'Reaction added successfully.',
    response: ReactionAddedResult,
    errors: [CommentErrors.threadNotFound(), CommentErrors.commentNotFound(), CommentErrors.tooManyReactions(DEFAULT_MAX_REACTIONS)],
  })
  addReaction(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddReactionRequest): ReturnType<ReactionsService['add']> {
    return this.reactions.add(caller, data);
  }

  @Operation('/v2/commentannotations/comments/reactions/delete', {
    summary: "Removes a user's reaction from a comment.",
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', annotationId: 'ann-launch-date', commentId: 1, icon: '👍', userId: 'user-bob' },

    auth: 'apiKey',
    message: 'Reaction deleted successfully.',
    response: ReactionDeletedResult,
    errors: [CommentErrors.threadNotFound(), CommentErrors.commentNotFound()],
  })
  deleteReaction(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteReactionRequest): ReturnType<ReactionsService['delete']> {
    return this.reactions.delete(caller, data);
  }
}
