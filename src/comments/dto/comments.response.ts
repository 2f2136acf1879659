import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { anyObject, listOf, mapOf, nullableRef, SuccessResult } from '../../common/openapi-responses.js';
import { ANNOTATION_TYPES, VISIBILITY_TYPES } from '../threads.js';
import {
  ACTIONS,
  CommentAgentView,
  CommentAttachment,
  CommentLocation,
  CommentPriority,
  CommentProgress,
  CommentStatus,
  CommentUser,
  CONTEXT,
  TaggedUserContact,
  TIMESTAMP,
} from './thread.schemas.js';

/* What the comments operations answer (their OpenAPI shapes; `threadJson`/`commentJson` build them). */

/** A user's reaction to a comment, as get answers it (upstream's `reactionAnnotations` item). */
export class CommentReactionItem {
  @ApiProperty({ description: "The reaction's id (`rxn_…`)." }) annotationId!: string;
  @ApiProperty() icon!: string;
  @ApiProperty({ type: CommentUser }) from!: CommentUser;
  @ApiProperty(TIMESTAMP) createdAt!: number;
  @ApiProperty({ description: 'ISO 8601.' }) lastUpdated!: string;
}

/** A comment as get answers it (upstream's shape: `createdAt` in ms, `lastUpdated` in ISO 8601). */
export class CommentView {
  @ApiProperty({ type: 'integer' }) commentId!: number;
  @ApiProperty({ type: CommentUser }) from!: CommentUser;
  @ApiPropertyOptional() commentText?: string;
  @ApiPropertyOptional() commentHtml?: string;
  @ApiPropertyOptional(CONTEXT) context?: Record<string, unknown>;
  @ApiPropertyOptional() isCommentResolverUsed?: boolean;
  @ApiProperty({ description: 'As sent, else whether the comment has text or HTML.' }) isCommentTextAvailable!: boolean;
  @ApiPropertyOptional({ type: CommentAgentView }) agent?: CommentAgentView;
  @ApiPropertyOptional({ type: CommentProgress }) progress?: CommentProgress;
  @ApiPropertyOptional(ACTIONS) actions?: Record<string, unknown>[];
  @ApiProperty({ enum: ['text'] }) type!: string;
  @ApiProperty({ enum: ['added', 'updated'] }) status!: string;
  @ApiProperty({ enum: [false] }) isDraft!: boolean;
  @ApiProperty(TIMESTAMP) createdAt!: number;
  @ApiProperty({ description: 'ISO 8601.' }) lastUpdated!: string;
  @ApiProperty({ type: [CommentUser], description: 'The users it mentions, as their contacts.' }) to!: CommentUser[];
  @ApiProperty({ type: [TaggedUserContact] }) taggedUserContacts!: TaggedUserContact[];
  @ApiProperty({ type: [CommentAttachment] }) attachments!: CommentAttachment[];
  @ApiProperty({ type: [String] }) reactionAnnotationIds!: string[];
  @ApiProperty({ type: [CommentReactionItem] }) reactionAnnotations!: CommentReactionItem[];
}

export class AnnotationMetadataView {
  @ApiProperty() apiKey!: string;
  @ApiProperty() organizationId!: string;
  @ApiProperty() documentId!: string;
}

export class AnnotationVisibilityView {
  @ApiProperty({ enum: VISIBILITY_TYPES }) type!: string;
  @ApiPropertyOptional() organizationId?: string;
  @ApiPropertyOptional({ type: [String] }) userIds?: string[];
}

/** A comment thread as get answers it, with its comments. */
export class AnnotationView {
  @ApiProperty() annotationId!: string;
  @ApiPropertyOptional({ type: 'integer', description: "The thread's number in its document; threads added before numbering have none." })
  annotationNumber?: number;
  @ApiProperty({ enum: ANNOTATION_TYPES }) type!: string;
  @ApiProperty({ enum: ['rest-api', 'agent'] }) sourceType!: string;
  @ApiProperty({ type: CommentUser, description: "The first comment's author." }) from!: CommentUser;
  @ApiProperty({ type: CommentStatus }) status!: CommentStatus;
  @ApiPropertyOptional({ type: CommentPriority }) priority?: CommentPriority;
  @ApiPropertyOptional(nullableRef(CommentUser, "null once the assignee's data was erased.")) assignedTo?: CommentUser | null;
  @ApiPropertyOptional({ type: CommentLocation }) location?: CommentLocation;
  @ApiPropertyOptional({ description: '`location.id`.' }) locationId?: string;
  @ApiPropertyOptional(anyObject('Kept as sent.')) targetElement?: Record<string, unknown>;
  @ApiPropertyOptional(CONTEXT) context?: Record<string, unknown>;
  @ApiProperty({ type: AnnotationVisibilityView }) visibilityConfig!: AnnotationVisibilityView;
  @ApiPropertyOptional(anyObject('Kept as sent, with its `status`.')) suggestion?: Record<string, unknown>;
  @ApiPropertyOptional(ACTIONS) actions?: Record<string, unknown>[];
  @ApiPropertyOptional() commentType?: string;
  @ApiPropertyOptional({ type: String, nullable: true }) resolvedByUserId?: string | null;
  @ApiPropertyOptional(nullableRef(CommentUser, "null once the resolver's data was erased.")) resolvedByUser?: CommentUser | null;
  @ApiPropertyOptional({ type: String, nullable: true }) statusUpdatedByUserId?: string | null;
  @ApiProperty(TIMESTAMP) createdAt!: number;
  @ApiProperty(TIMESTAMP) lastUpdated!: number;
  @ApiProperty({ type: AnnotationMetadataView }) metadata!: AnnotationMetadataView;
  @ApiProperty({ type: [CommentView], description: 'Oldest first.' }) comments!: CommentView[];
  @ApiPropertyOptional({ description: "Set when the thread's comments pass a page: comments get's `pageToken` for the rest." }) commentsPageToken?: string;
}

export class ReactionAddedResult extends SuccessResult {
  @ApiProperty({
    type: 'object',
    properties: { annotationId: { type: 'string' }, added: { type: 'boolean', description: 'false: the user had this reaction already (nothing changed).' } },
    required: ['annotationId', 'added'],
  })
  data!: { annotationId: string; added: boolean };
}

export class ReactionDeletedResult extends SuccessResult {
  @ApiProperty({
    type: 'object',
    properties: { deleted: { type: 'boolean', description: 'false: the user had no such reaction (nothing changed).' } },
    required: ['deleted'],
  })
  data!: { deleted: boolean };
}

/** One annotation's outcome in annotations add (upstream's shape). */
export class AnnotationAdded {
  @ApiProperty() success!: boolean;
  @ApiPropertyOptional() annotationId?: string;
  @ApiPropertyOptional({ type: [Number] }) commentIds?: number[];
  @ApiProperty() message!: string;
  @ApiPropertyOptional({ description: "Agent threads: the root comment's `agent.reason.findingId`." }) findingId?: string;
}

export class AnnotationsAddedResult extends SuccessResult {
  @ApiProperty(mapOf(AnnotationAdded, "Each thread's outcome, by annotation id."))
  data!: Record<string, AnnotationAdded>;
}

export class AnnotationsResult extends SuccessResult {
  @ApiProperty({
    oneOf: [
      { type: 'array', items: nullableRef(AnnotationView) },
      { type: 'object', additionalProperties: listOf(AnnotationView) },
    ],
    description:
      'Threads (each with its `comments`), or by document id with `groupByDocumentId`; `null` for a requested annotation id that does not exist. A thread whose comments pass a page (8 MiB) carries the first of them and `commentsPageToken`, the `pageToken` of comments get for the rest.',
  })
  data!: unknown;
  @ApiPropertyOptional() nextPageToken?: string;
}

export class AnnotationCountsResult extends SuccessResult {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'object', properties: { total: { type: 'integer' }, unread: { type: 'integer' } }, required: ['total', 'unread'] },
  })
  data!: Record<string, { total: number; unread: number }>;
}

export class CommentIdsResult extends SuccessResult {
  @ApiProperty({ type: [Number] }) data!: number[];
}

export class CommentsResult extends SuccessResult {
  @ApiProperty({
    type: 'array',
    items: nullableRef(CommentView),
    description: 'Oldest first; on the last page, `null` for each requested comment id that does not exist.',
  })
  data!: unknown[];
  @ApiPropertyOptional({ description: 'Set when more comments follow: send it as `pageToken` for the next page.' }) nextPageToken?: string;
}

export class CommentOutcomesResult extends SuccessResult {
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: { success: { type: 'boolean' }, id: { type: 'number' }, message: { type: 'string' } },
      required: ['success', 'id', 'message'],
    },
  })
  data!: Record<string, { success: boolean; id: number; message: string }>;
}
