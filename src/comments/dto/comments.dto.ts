import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_BATCH, MAX_FILTER_IDS } from '../../common/batch.js';
import {
  AnnotationChanges,
  AnnotationInput as AnnotationInputSchema,
  CommentChanges,
  CommentInput as CommentInputSchema,
  CommentUser,
  UserReplacement,
} from './thread.schemas.js';
import { PageSizeField, PageTokenField } from '../../common/paging.js';
import {
  checkArrayOf,
  checkBoolean,
  checkId,
  checkInteger,
  checkOneOf,
  checkPlainObject,
  checkShape,
  checkString,
  checkUser,
  within,
  type Check,
  type WireUser,
} from '../../common/validation/checks.js';
import {
  IsId,
  IsIdArray,
  IsOptionalBool,
  IsOptionalId,
  IsOptionalIdArray,
  IsOptionalInteger,
  IsOptionalOneOf,
  IsOptionalTextArray,
  IsOptionalUser,
  IsUser,
  Optional,
  Satisfies,
} from '../../common/validation/rules.js';
import {
  AGENT_SOURCES,
  AGENT_TYPES,
  ANNOTATION_TYPES,
  STATUS_TYPES,
  SUGGESTION_STATUSES,
  VISIBILITY_TYPES,
  type AgentBlock,
  type Annotation,
  type Comment,
} from '../threads.js';

const TEXT_MAX = 100_000;
const MAX_ACTIONS = 20;
const MAX_PROGRESS_STEPS = 100;
const checkTimestamp = checkInteger(0, Number.MAX_SAFE_INTEGER);
export const checkCommentId = checkInteger(1, Number.MAX_SAFE_INTEGER);
/** Annotation ids never hold a colon: upstream keys a denied annotation without one `__velt_denied:<index>`. */
const checkAnnotationId: Check = (value) => checkId(value) ?? ((value as string).includes(':') ? 'must not contain ":"' : undefined);
const text = (max: number) => checkString({ max, allowEmpty: true });
/** An upstream object: the named fields checked, any other key kept as sent. */
const openObject = (fields: Record<string, Check>, required: readonly string[]): Check => checkShape(fields, required, { open: true });

const checkStatus = openObject({ id: checkId, name: text(256), type: checkOneOf(STATUS_TYPES) }, ['id', 'name', 'type']);
const checkPriority = openObject({ id: checkId, name: text(256) }, ['id', 'name']);
const checkLocation = openObject({ id: checkId, locationName: text(1000) }, ['id']);
const checkActions = checkArrayOf(checkPlainObject, { max: MAX_ACTIONS });
const checkProgress = openObject({ steps: checkArrayOf(checkPlainObject, { max: MAX_PROGRESS_STEPS }) }, []);
const checkTagged = checkArrayOf(openObject({ userId: checkId, contact: checkUser, text: text(1000) }, ['userId']), { max: MAX_BATCH });
const checkAttachments = checkArrayOf(openObject({ attachmentId: checkTimestamp }, ['attachmentId']), { max: MAX_BATCH });
const checkVisibility: Check = (value) => {
  const problem = openObject({ type: checkOneOf(VISIBILITY_TYPES), organizationId: checkId, userIds: checkArrayOf(checkId, { min: 1, max: MAX_BATCH }) }, [
    'type',
  ])(value);
  if (problem) return problem;
  const visibility = value as { type: string; organizationId?: string; userIds?: string[] };
  if (visibility.type === 'organizationPrivate' && visibility.organizationId === undefined) return '.organizationId is required for type organizationPrivate';
  if (visibility.type === 'restricted' && visibility.userIds === undefined) return '.userIds is required for type restricted';
  return undefined;
};
const checkAgent: Check = (value) => {
  const problem = openObject(
    {
      agentSource: checkOneOf(AGENT_SOURCES),
      agentId: checkId,
      executionId: checkId,
      agentName: text(1000),
      url: text(2000),
      reason: openObject(
        {
          title: text(1000),
          description: text(TEXT_MAX),
          severity: checkOneOf(['critical', 'high', 'medium', 'low', 'info']),
          findingType: checkOneOf(['text', 'pin', 'page']),
          confidence: checkInteger(0, 100),
          source: checkOneOf(['instructions', 'knowledge']),
        },
        ['title', 'description', 'severity'],
      ),
    },
    ['agentSource', 'agentId', 'reason'],
  )(value);
  if (problem) return problem;
  return (value as AgentBlock).agentSource === 'external' && (value as AgentBlock).agentName === undefined
    ? '.agentName is required for agentSource external'
    : undefined;
};

/** Fields of a comment a caller sends (add) or changes (update). */
const COMMENT_FIELDS = {
  commentText: text(TEXT_MAX),
  commentHtml: text(TEXT_MAX),
  context: checkPlainObject,
  isCommentResolverUsed: checkBoolean,
  isCommentTextAvailable: checkBoolean,
  from: checkUser,
  taggedUserContacts: checkTagged,
  attachments: checkAttachments,
} satisfies Record<string, Check>;

const checkCommentInput = checkShape(
  {
    ...COMMENT_FIELDS,
    commentId: checkCommentId,
    createdAt: checkTimestamp,
    lastUpdated: checkTimestamp,
    progress: checkProgress,
    actions: checkActions,
    agent: checkAgent,
    triggerNotification: checkBoolean,
    triggerActivities: checkBoolean,
  },
  ['from'],
);
const checkComments: Check = (value) => {
  const problem = checkArrayOf(checkCommentInput, { min: 1, max: MAX_BATCH })(value);
  if (problem) return problem;
  const seen = new Set<number>();
  for (const [i, comment] of (value as { commentId?: number }[]).entries()) {
    if (comment.commentId === undefined) continue;
    if (seen.has(comment.commentId)) return within(`[${i}].commentId`, 'repeats an earlier comment of this list');
    seen.add(comment.commentId);
  }
  return undefined;
};

/** Everything of an annotation that update may set (`updatedData`). */
const ANNOTATION_UPDATE_FIELDS = {
  location: checkLocation,
  targetElement: checkPlainObject,
  from: checkUser,
  status: checkStatus,
  statusUpdatedByUserId: (value: unknown) => (value === null ? undefined : checkId(value)),
  resolvedByUserId: (value: unknown) => (value === null ? undefined : checkId(value)),
  assignedTo: checkUser,
  context: checkPlainObject,
  priority: checkPriority,
  suggestion: openObject({ status: checkOneOf(SUGGESTION_STATUSES) }, []),
  actions: checkActions,
} satisfies Record<string, Check>;

const checkAnnotationInput = checkShape(
  {
    annotationId: checkAnnotationId,
    location: checkLocation,
    targetElement: checkPlainObject,
    commentData: checkComments,
    status: checkStatus,
    assignedTo: checkUser,
    context: checkPlainObject,
    createdAt: checkTimestamp,
    lastUpdated: checkTimestamp,
    priority: checkPriority,
    type: checkOneOf(ANNOTATION_TYPES),
    suggestion: checkPlainObject,
    commentType: checkOneOf(['manual', 'chart', 'suggestion']),
    visibility: checkVisibility,
    actions: checkActions,
  },
  ['commentData'],
);
const checkAnnotations: Check = (value) => {
  const problem = checkArrayOf(checkAnnotationInput, { min: 1, max: MAX_BATCH })(value);
  if (problem) return problem;
  const seen = new Set<string>();
  for (const [i, annotation] of (value as { annotationId?: string }[]).entries()) {
    if (annotation.annotationId === undefined) continue;
    if (seen.has(annotation.annotationId)) return within(`[${i}].annotationId`, 'repeats an earlier annotation of this list');
    seen.add(annotation.annotationId);
  }
  return undefined;
};

/** A comment as a caller sends it (annotations add, comments add). */
export type CommentInput = Partial<
  Pick<
    Comment,
    | 'commentId'
    | 'commentText'
    | 'commentHtml'
    | 'context'
    | 'isCommentResolverUsed'
    | 'isCommentTextAvailable'
    | 'taggedUserContacts'
    | 'attachments'
    | 'agent'
    | 'progress'
    | 'actions'
    | 'createdAt'
    | 'lastUpdated'
  >
> & {
  from: WireUser;
  triggerNotification?: boolean;
  triggerActivities?: boolean;
};

export type AnnotationInput = Partial<
  Pick<
    Annotation,
    | 'annotationId'
    | 'location'
    | 'targetElement'
    | 'status'
    | 'assignedTo'
    | 'context'
    | 'createdAt'
    | 'lastUpdated'
    | 'priority'
    | 'type'
    | 'suggestion'
    | 'commentType'
    | 'actions'
  >
> & {
  commentData: CommentInput[];
  visibility?: Annotation['visibilityConfig'];
};

export type AnnotationUpdate = Partial<
  Pick<
    Annotation,
    | 'location'
    | 'targetElement'
    | 'from'
    | 'status'
    | 'statusUpdatedByUserId'
    | 'resolvedByUserId'
    | 'assignedTo'
    | 'context'
    | 'priority'
    | 'suggestion'
    | 'actions'
  >
>;
export type CommentUpdate = Partial<Pick<Comment, keyof typeof COMMENT_FIELDS>>;

const TRIGGER_NOTE = 'Default false, as upstream: ';

/** Where a write names its thread. */
class ThreadPlace {
  @IsId() organizationId!: string;
  @IsId() documentId!: string;
}

/** The service's own additions to the update and delete operations: who acts, and whether the change is an event. */
class EventOptions extends ThreadPlace {
  @ApiPropertyOptional({
    type: CommentUser,
    description: "Who made the change, for its activity (default: the thread's author, or `statusUpdatedByUserId` for a status change).",
  })
  @IsOptionalUser()
  actionUser?: WireUser;
  @ApiPropertyOptional({ description: `${TRIGGER_NOTE}record the change in the activity log.` }) @IsOptionalBool() triggerActivities?: boolean;
  @ApiPropertyOptional({ description: `${TRIGGER_NOTE}inbox entries, e-mail and webhooks for the change.` }) @IsOptionalBool() triggerNotification?: boolean;
}

export class AddAnnotationsRequest extends ThreadPlace {
  @IsOptionalBool() createOrganization?: boolean;
  @IsOptionalBool() createDocument?: boolean;
  @ApiPropertyOptional({ description: "Each thread's author (its first comment's `from`) must be able to see the document." })
  @IsOptionalBool()
  verifyUserPermissions?: boolean;
  @ApiProperty({ type: [AnnotationInputSchema], minItems: 1, maxItems: MAX_BATCH })
  @Satisfies(checkAnnotations)
  commentAnnotations!: AnnotationInput[];
}

const AGENT_FILTERS = ['agentId', 'executionId', 'agentType', 'agentSource', 'agentSuggestions', 'agentComments', 'agentFields'] as const;
export { AGENT_FILTERS };

/** The filters of annotations get that upstream's v1 has too. */
class AnnotationFilters {
  @IsId() organizationId!: string;
  @IsOptionalIdArray(MAX_FILTER_IDS) locationIds?: string[];
  @IsOptionalIdArray(MAX_FILTER_IDS) annotationIds?: string[];
  @ApiPropertyOptional({ description: 'Thread authors.' }) @IsOptionalIdArray(MAX_FILTER_IDS) userIds?: string[];
}

/** v1 annotations get (upstream's, for SDK v3 or earlier): one document's threads, and no paging: every thread comes with all its comments. */
export class GetAnnotationsV1Request extends AnnotationFilters {
  @IsId() documentId!: string;
}

export class GetAnnotationsRequest extends AnnotationFilters {
  @IsOptionalId() documentId?: string;
  @IsOptionalIdArray(MAX_FILTER_IDS) documentIds?: string[];
  @IsOptionalBool() groupByDocumentId?: boolean;
  @IsOptionalId() folderId?: string;
  @IsOptionalIdArray(MAX_FILTER_IDS) mentionedUserIds?: string[];
  @IsOptionalId() resolvedBy?: string;
  @IsOptionalId() agentId?: string;
  @IsOptionalId() executionId?: string;
  @IsOptionalOneOf(AGENT_TYPES) agentType?: string;
  @IsOptionalOneOf(AGENT_SOURCES) agentSource?: string;
  @IsOptionalBool() agentSuggestions?: boolean;
  @IsOptionalBool() agentComments?: boolean;
  @ApiPropertyOptional({
    type: [String],
    description:
      'Agent threads matching any of the tokens `agent:<agentId>`, `execution:<executionId>`, `source:<velt|external>`; another token is INVALID_ARGUMENT.',
  })
  @IsOptionalTextArray(300, { max: MAX_FILTER_IDS })
  agentFields?: string[];
  @ApiPropertyOptional({ description: 'By `lastUpdated`; default `desc`.' }) @IsOptionalOneOf(['asc', 'desc']) order?: 'asc' | 'desc';
  @IsOptionalIdArray(MAX_FILTER_IDS) statusIds?: string[];
  @IsOptionalInteger(0, Number.MAX_SAFE_INTEGER) updatedAfter?: number;
  @IsOptionalInteger(0, Number.MAX_SAFE_INTEGER) updatedBefore?: number;
  @IsOptionalInteger(0, Number.MAX_SAFE_INTEGER) createdAfter?: number;
  @IsOptionalInteger(0, Number.MAX_SAFE_INTEGER) createdBefore?: number;
  @PageSizeField() pageSize?: number;
  @PageTokenField() pageToken?: string;
}

export class UpdateAnnotationsRequest extends EventOptions {
  @IsOptionalIdArray(MAX_BATCH) locationIds?: string[];
  @ApiPropertyOptional({ description: 'Thread authors.' }) @IsOptionalIdArray(MAX_BATCH) userIds?: string[];
  @IsOptionalIdArray(MAX_BATCH) annotationIds?: string[];
  @ApiPropertyOptional({ type: AnnotationChanges })
  @Optional()
  @Satisfies(checkShape(ANNOTATION_UPDATE_FIELDS))
  updatedData?: AnnotationUpdate;
  @ApiPropertyOptional({ type: [UserReplacement], minItems: 1, maxItems: MAX_BATCH })
  @Optional()
  @Satisfies(checkArrayOf(checkShape({ oldUser: checkUser, newUser: checkUser }, ['oldUser', 'newUser']), { min: 1, max: MAX_BATCH }))
  updateUsers?: { oldUser: WireUser; newUser: WireUser }[];
}

export class DeleteAnnotationsRequest extends EventOptions {
  @ApiPropertyOptional({ description: 'Without it, the document is looked for in every organization of the key.' })
  @IsOptionalId()
  declare organizationId: string;
  @IsOptionalIdArray(MAX_BATCH) locationIds?: string[];
  @IsOptionalIdArray(MAX_BATCH) annotationIds?: string[];
  @IsOptionalIdArray(MAX_BATCH) userIds?: string[];
  @IsOptionalId() agentId?: string;
  @IsOptionalBool() agentSuggestions?: boolean;
  @ApiPropertyOptional({ type: [String], maxItems: MAX_FILTER_IDS }) @IsOptionalTextArray(2000, { min: 1, max: MAX_FILTER_IDS }) agentUrls?: string[];
}

export class CountAnnotationsRequest {
  @IsId() organizationId!: string;
  @IsIdArray(MAX_FILTER_IDS, { min: 1 }) documentIds!: string[];
  @ApiProperty({ description: 'Whose unread threads are counted.' }) @IsId() userId!: string;
  @IsOptionalIdArray(MAX_FILTER_IDS) statusIds?: string[];
}

class CommentThreadPlace extends ThreadPlace {
  @ApiProperty() @Satisfies(checkAnnotationId) annotationId!: string;
}

export class AddCommentsRequest extends CommentThreadPlace {
  @IsOptionalBool() createOrganization?: boolean;
  @IsOptionalBool() createDocument?: boolean;
  @ApiProperty({ type: [CommentInputSchema], minItems: 1, maxItems: MAX_BATCH }) @Satisfies(checkComments) commentData!: CommentInput[];
}

/** v1 comments get (upstream's): no paging, every comment of the thread is answered. */
export class GetCommentsV1Request extends CommentThreadPlace {
  @ApiPropertyOptional({ description: 'Comment authors.' }) @IsOptionalIdArray(MAX_BATCH) userIds?: string[];
  @ApiPropertyOptional({ type: [Number], maxItems: MAX_BATCH })
  @Optional()
  @Satisfies(checkArrayOf(checkCommentId, { min: 1, max: MAX_BATCH }))
  commentIds?: number[];
}

export class GetCommentsRequest extends GetCommentsV1Request {
  @PageSizeField() pageSize?: number;
  @PageTokenField() pageToken?: string;
}

export class UpdateCommentsRequest extends CommentThreadPlace {
  @ApiProperty({ type: [Number], maxItems: MAX_BATCH })
  @Satisfies(checkArrayOf(checkCommentId, { min: 1, max: MAX_BATCH, unique: true }))
  commentIds!: number[];
  @ApiProperty({ type: CommentChanges })
  @Satisfies(checkShape(COMMENT_FIELDS))
  updatedData!: CommentUpdate;
  @ApiPropertyOptional({ description: `${TRIGGER_NOTE}record \`comment.update\` in the activity log.` }) @IsOptionalBool() triggerActivities?: boolean;
  @ApiPropertyOptional({ description: `${TRIGGER_NOTE}inbox entries, e-mail and webhooks for it.` }) @IsOptionalBool() triggerNotification?: boolean;
}

export class DeleteCommentsRequest extends CommentThreadPlace {
  @ApiPropertyOptional({ type: [Number], maxItems: MAX_BATCH })
  @Optional()
  @Satisfies(checkArrayOf(checkCommentId, { min: 1, max: MAX_BATCH }))
  commentIds?: number[];
  @ApiPropertyOptional({ type: CommentUser, description: "Who deleted them, for the activity (default: each comment's author)." })
  @IsOptionalUser()
  actionUser?: WireUser;
  @IsOptionalBool() triggerActivities?: boolean;
  @IsOptionalBool() triggerNotification?: boolean;
}

class ReactionPlace extends CommentThreadPlace {
  @ApiProperty({ minimum: 1 }) @Satisfies(checkCommentId) commentId!: number;
  @ApiProperty({ maxLength: 64, description: "The reaction: an emoji or any short name of the caller's (a thumbs-up emoji, or `thumbs-up`)." })
  @Satisfies(checkString({ max: 64 }))
  icon!: string;
  @IsOptionalBool() triggerActivities?: boolean;
  @IsOptionalBool() triggerNotification?: boolean;
}

/** `commentannotations/comments/reactions/add` (ours: upstream's REST API has none). */
export class AddReactionRequest extends ReactionPlace {
  @ApiProperty({ type: CommentUser, description: 'Who reacts.' }) @IsUser() from!: WireUser;
}

/** `commentannotations/comments/reactions/delete`. */
export class DeleteReactionRequest extends ReactionPlace {
  @ApiProperty({ description: 'Whose reaction goes.' }) @IsId() userId!: string;
}
