import { ApiProperty, ApiPropertyOptional, ApiSchema, type ApiSchemaOptions } from '@nestjs/swagger';
import { MAX_BATCH } from '../../common/batch.js';
import { anyObject, WithMetadata } from '../../common/openapi-responses.js';
import { AGENT_SOURCES, AGENT_TYPES, ANNOTATION_TYPES, STATUS_TYPES, SUGGESTION_STATUSES, VISIBILITY_TYPES } from '../threads.js';

/*
 * The OpenAPI shapes of comment threads' parts, for documentation only: requests are checked by
 * the `check*` rules of comments.dto.ts; the answers' shapes (comments.response.ts) are built from
 * these parts by `threadJson`/`commentJson`. A shape the
 * rules check with `checkShape` (unknown keys refused) is closed here; the upstream objects the
 * rules keep as sent (users, statuses, locations, agent blocks...) stay open, with their known
 * fields typed; free-form metadata (`context`, `targetElement`, `actions`) is any JSON object.
 */

/** No key beyond the declared ones: the service refuses them (`checkShape`). */
const Closed = (description?: string): ClassDecorator =>
  ApiSchema({ ...(description ? { description } : {}), additionalProperties: false } as ApiSchemaOptions);

const KEPT = 'Any other key is kept as sent.';
export const TIMESTAMP = { type: 'integer', minimum: 0, description: 'Milliseconds since the epoch.' } as const;
const TEXT = (maxLength: number, description?: string) => ({ type: 'string', maxLength, ...(description ? { description } : {}) }) as const;
export const ACTIONS = { type: 'array', items: anyObject(), maxItems: 20, description: 'Upstream action objects, kept as sent.' } as const;
export const CONTEXT = anyObject('Free-form metadata of the caller (any JSON object), kept as sent.');

/** A user as comments carry one (`from`, `assignedTo`, a tagged contact, `actionUser`). */
@WithMetadata(KEPT)
export class CommentUser {
  @ApiProperty({ maxLength: 256 }) userId!: string;
  @ApiPropertyOptional({ maxLength: 1000 }) name?: string;
  @ApiPropertyOptional({ maxLength: 1000 }) email?: string;
}

/** A thread's status (upstream's `Status`): `type: terminal` resolves the thread. */
@WithMetadata(KEPT)
export class CommentStatus {
  @ApiProperty({ example: 'IN_PROGRESS' }) id!: string;
  @ApiProperty({ maxLength: 256 }) name!: string;
  @ApiProperty({ enum: STATUS_TYPES }) type!: string;
}

@WithMetadata(KEPT)
export class CommentPriority {
  @ApiProperty({ example: 'P1' }) id!: string;
  @ApiProperty({ maxLength: 256 }) name!: string;
}

/** Where a thread sits in the document. */
@WithMetadata(KEPT)
export class CommentLocation {
  @ApiProperty() id!: string;
  @ApiPropertyOptional({ maxLength: 1000 }) locationName?: string;
}

/** A user a comment mentions. */
@WithMetadata(KEPT)
export class TaggedUserContact {
  @ApiProperty() userId!: string;
  @ApiPropertyOptional({ type: CommentUser }) contact?: CommentUser;
  @ApiPropertyOptional({ maxLength: 1000, description: 'The mention as written, e.g. `@Bob Chen`.' }) text?: string;
}

/** A file on a comment (`commentannotations/comments/attachments/add` answers its id). */
@WithMetadata(KEPT)
export class CommentAttachment {
  @ApiProperty({ type: 'integer', minimum: 0 }) attachmentId!: number;
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional({ type: 'integer', description: 'Bytes.' }) size?: number;
  @ApiPropertyOptional() type?: string;
  @ApiPropertyOptional() mimeType?: string;
}

/** Why an agent commented. */
@WithMetadata(KEPT)
export class AgentReason {
  @ApiProperty({ maxLength: 1000 }) title!: string;
  @ApiProperty({ maxLength: 100_000 }) description!: string;
  @ApiProperty({ enum: ['critical', 'high', 'medium', 'low', 'info'] }) severity!: string;
  @ApiPropertyOptional({ enum: ['text', 'pin', 'page'] }) findingType?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 100 }) confidence?: number;
  @ApiPropertyOptional({ enum: ['instructions', 'knowledge'] }) source?: string;
}

/** An agent-authored comment's block (upstream's `agent`). */
@WithMetadata(KEPT)
export class CommentAgent {
  @ApiProperty({ enum: AGENT_SOURCES }) agentSource!: string;
  @ApiProperty() agentId!: string;
  @ApiPropertyOptional() executionId?: string;
  @ApiPropertyOptional({ maxLength: 1000, description: 'Required for `agentSource: external`.' }) agentName?: string;
  @ApiPropertyOptional({ maxLength: 2000 }) url?: string;
  @ApiProperty({ type: AgentReason }) reason!: AgentReason;
}

/** An agent block as get answers it: the service adds `agentType`. */
@WithMetadata(KEPT)
export class CommentAgentView extends CommentAgent {
  @ApiProperty({ enum: AGENT_TYPES }) agentType!: string;
}

@WithMetadata(KEPT)
export class CommentProgress {
  @ApiPropertyOptional({ type: 'array', items: anyObject(), maxItems: 100 }) steps?: Record<string, unknown>[];
}

/** Who may see a thread. */
@WithMetadata(KEPT)
export class AnnotationVisibility {
  @ApiProperty({ enum: VISIBILITY_TYPES }) type!: string;
  @ApiPropertyOptional({ description: 'Required for `organizationPrivate`.' }) organizationId?: string;
  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: MAX_BATCH, description: 'Required for `restricted`.' }) userIds?: string[];
}

@WithMetadata(KEPT)
export class SuggestionChange {
  @ApiPropertyOptional({ enum: SUGGESTION_STATUSES }) status?: string;
}

/** The fields of a comment a caller sends (comments add) or changes (comments update). */
class CommentFields {
  @ApiPropertyOptional(TEXT(100_000, '`{{userId}}` placeholders mention users.')) commentText?: string;
  @ApiPropertyOptional(TEXT(100_000)) commentHtml?: string;
  @ApiPropertyOptional(CONTEXT) context?: Record<string, unknown>;
  @ApiPropertyOptional() isCommentResolverUsed?: boolean;
  @ApiPropertyOptional() isCommentTextAvailable?: boolean;
  @ApiPropertyOptional({ type: [TaggedUserContact], maxItems: MAX_BATCH, description: 'The users the comment mentions.' })
  taggedUserContacts?: TaggedUserContact[];
  @ApiPropertyOptional({ type: [CommentAttachment], maxItems: MAX_BATCH }) attachments?: CommentAttachment[];
}

/** A comment as a caller sends it (annotations add, comments add). */
@Closed()
export class CommentInput extends CommentFields {
  @ApiProperty({ type: CommentUser, description: 'The author.' }) from!: CommentUser;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: "Default: the thread's next number." }) commentId?: number;
  @ApiPropertyOptional({ ...TIMESTAMP, description: 'Default: now.' }) createdAt?: number;
  @ApiPropertyOptional({ ...TIMESTAMP, description: 'Default: createdAt.' }) lastUpdated?: number;
  @ApiPropertyOptional({ type: CommentProgress }) progress?: CommentProgress;
  @ApiPropertyOptional(ACTIONS) actions?: Record<string, unknown>[];
  @ApiPropertyOptional({ type: CommentAgent }) agent?: CommentAgent;
  @ApiPropertyOptional({ description: 'Default false: inbox entries, e-mail and webhooks for it.' }) triggerNotification?: boolean;
  @ApiPropertyOptional({ description: 'Default false: record it in the activity log.' }) triggerActivities?: boolean;
}

/** What comments update may change (`updatedData`). */
@Closed()
export class CommentChanges extends CommentFields {
  @ApiPropertyOptional({ type: CommentUser }) from?: CommentUser;
}

/** A thread as a caller sends it (annotations add). */
@Closed()
export class AnnotationInput {
  @ApiPropertyOptional({ description: 'Made by the service when absent; no `:`.' }) annotationId?: string;
  @ApiProperty({ type: [CommentInput], minItems: 1, maxItems: MAX_BATCH, description: 'The first comments; the first one is the thread’s.' })
  commentData!: CommentInput[];
  @ApiPropertyOptional({ type: CommentLocation }) location?: CommentLocation;
  @ApiPropertyOptional(anyObject('The element the thread is pinned to, kept as sent.')) targetElement?: Record<string, unknown>;
  @ApiPropertyOptional({ type: CommentStatus, description: 'Default: Open.' }) status?: CommentStatus;
  @ApiPropertyOptional({ type: CommentUser }) assignedTo?: CommentUser;
  @ApiPropertyOptional({ type: CommentPriority }) priority?: CommentPriority;
  @ApiPropertyOptional(CONTEXT) context?: Record<string, unknown>;
  @ApiPropertyOptional({ enum: ANNOTATION_TYPES }) type?: string;
  @ApiPropertyOptional(anyObject('A suggested change, kept as sent.')) suggestion?: Record<string, unknown>;
  @ApiPropertyOptional({ enum: ['manual', 'chart', 'suggestion'] }) commentType?: string;
  @ApiPropertyOptional({ type: AnnotationVisibility }) visibility?: AnnotationVisibility;
  @ApiPropertyOptional(ACTIONS) actions?: Record<string, unknown>[];
  @ApiPropertyOptional(TIMESTAMP) createdAt?: number;
  @ApiPropertyOptional(TIMESTAMP) lastUpdated?: number;
}

/** What annotations update may change (`updatedData`). */
@Closed()
export class AnnotationChanges {
  @ApiPropertyOptional({ type: CommentLocation }) location?: CommentLocation;
  @ApiPropertyOptional(anyObject('Kept as sent.')) targetElement?: Record<string, unknown>;
  @ApiPropertyOptional({ type: CommentUser }) from?: CommentUser;
  @ApiPropertyOptional({ type: CommentStatus }) status?: CommentStatus;
  @ApiPropertyOptional({ type: String, nullable: true }) statusUpdatedByUserId?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) resolvedByUserId?: string | null;
  @ApiPropertyOptional({ type: CommentUser }) assignedTo?: CommentUser;
  @ApiPropertyOptional(CONTEXT) context?: Record<string, unknown>;
  @ApiPropertyOptional({ type: CommentPriority }) priority?: CommentPriority;
  @ApiPropertyOptional({ type: SuggestionChange }) suggestion?: SuggestionChange;
  @ApiPropertyOptional(ACTIONS) actions?: Record<string, unknown>[];
}

/** One user replaced by another in the threads annotations update selects (`updateUsers`). */
@Closed()
export class UserReplacement {
  @ApiProperty({ type: CommentUser }) oldUser!: CommentUser;
  @ApiProperty({ type: CommentUser }) newUser!: CommentUser;
}
