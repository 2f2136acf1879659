/**
 * A comment thread as this service keeps it: an annotation (where the thread sits, its status,
 * priority, assignee, visibility) and its comments. Field names are upstream's
 * (`api-reference/rest-apis/v2/comments-feature/`), so a stored record is also its own wire shape
 * apart from the few fields `annotationJson`/`commentJson` add or render.
 */

import type { WireUser } from '../common/validation/checks.js';

/** A status (upstream's `Status`): `type` decides whether the thread is resolved (`terminal`). */
export type Status = { id: string; name: string; type: StatusType } & Record<string, unknown>;
export const STATUS_TYPES = ['default', 'ongoing', 'terminal'] as const;
export type StatusType = (typeof STATUS_TYPES)[number];

/** The status a thread starts in when the caller names none (upstream's default). */
export const OPEN_STATUS: Status = { id: 'OPEN', name: 'Open', type: 'default', color: '#625DF5', lightColor: '#E7E8FA' };

export const ANNOTATION_TYPES = ['comment', 'suggestion'] as const;
export type AnnotationType = (typeof ANNOTATION_TYPES)[number];
export const SUGGESTION_STATUSES = ['pending', 'accepted', 'rejected'] as const;
export type SuggestionStatus = (typeof SUGGESTION_STATUSES)[number];
export const AGENT_SOURCES = ['velt', 'external'] as const;
export const AGENT_TYPES = ['built-in', 'custom', 'external'] as const;
export const VISIBILITY_TYPES = ['public', 'organizationPrivate', 'restricted'] as const;

/** An agent-authored comment's block (upstream's `agent`), kept as sent plus the `agentType` the service derives. */
export type AgentBlock = { agentSource: (typeof AGENT_SOURCES)[number]; agentId: string; agentType?: string; executionId?: string; url?: string } & Record<
  string,
  unknown
>;

/**
 * A user's reaction to a comment (`commentannotations/comments/reactions/add`): one per user and
 * icon. `userId` beside `from` makes it a user's item, so erasure removes it whole.
 */
export interface Reaction {
  annotationId: string;
  icon: string;
  userId: string;
  from: WireUser;
  createdAt: number;
}

export interface Comment {
  commentId: number;
  from: WireUser;
  commentText?: string;
  commentHtml?: string;
  taggedUserContacts?: { userId: string; contact?: WireUser; text?: string }[];
  attachments?: Record<string, unknown>[];
  context?: Record<string, unknown>;
  isCommentResolverUsed?: boolean;
  isCommentTextAvailable?: boolean;
  agent?: AgentBlock;
  progress?: Record<string, unknown>;
  actions?: unknown[];
  /** Set once the comment has been updated (upstream's comment `status`: `added` / `updated`). */
  edited?: boolean;
  /** Reactions in the order they were added. */
  reactions?: Reaction[];
  createdAt: number;
  lastUpdated: number;
}

export interface Annotation {
  annotationId: string;
  /** The thread's number in its document (1, 2, 3… in the order threads were added); threads added before numbering have none. */
  annotationNumber?: number;
  organizationId: string;
  documentId: string;
  type: AnnotationType;
  sourceType: 'rest-api' | 'agent';
  from: WireUser;
  status: Status;
  priority?: Record<string, unknown>;
  assignedTo?: WireUser;
  location?: { id: string } & Record<string, unknown>;
  targetElement?: Record<string, unknown>;
  context?: Record<string, unknown>;
  visibilityConfig: { type: (typeof VISIBILITY_TYPES)[number]; organizationId?: string; userIds?: string[] };
  suggestion?: Record<string, unknown> & { status?: SuggestionStatus };
  actions?: unknown[];
  commentType?: string;
  /** The root comment's agent, kept for the agent filters (not answered at the root: upstream shows it on the comment). */
  agent?: AgentBlock;
  resolvedByUserId?: string | null;
  resolvedByUser?: WireUser | null;
  statusUpdatedByUserId?: string | null;
  createdAt: number;
  lastUpdated: number;
}

export type Thread = Annotation & { comments: Comment[] };

/** Users a comment tags: its `taggedUserContacts` and the `{{userId}}` placeholders of its text. */
export function mentionsOf(comment: Pick<Comment, 'taggedUserContacts' | 'commentText' | 'commentHtml'>): string[] {
  const ids = new Set<string>();
  for (const tagged of comment.taggedUserContacts ?? []) ids.add(tagged.userId);
  for (const text of [comment.commentText, comment.commentHtml]) for (const match of (text ?? '').matchAll(/\{\{([^{}\s]{1,256})\}\}/g)) ids.add(match[1]!);
  return [...ids];
}

/** A comment as get answers it (upstream's shape: `lastUpdated` in ISO 8601, `createdAt` in ms). */
export function commentJson(comment: Comment): Record<string, unknown> {
  const { edited, lastUpdated, taggedUserContacts, attachments, reactions, ...rest } = comment;
  return {
    ...rest,
    type: 'text',
    status: edited ? 'updated' : 'added',
    isDraft: false,
    isCommentTextAvailable: comment.isCommentTextAvailable ?? (comment.commentText !== undefined || comment.commentHtml !== undefined),
    createdAt: comment.createdAt,
    lastUpdated: new Date(lastUpdated).toISOString(),
    to: (taggedUserContacts ?? []).map((tagged) => tagged.contact ?? { userId: tagged.userId }),
    taggedUserContacts: taggedUserContacts ?? [],
    attachments: attachments ?? [],
    reactionAnnotationIds: (reactions ?? []).map((reaction) => reaction.annotationId),
    reactionAnnotations: (reactions ?? []).map(reactionJson),
  };
}

/** A reaction as upstream's `reactionAnnotations` item: its id, icon, user and time. */
export function reactionJson({ annotationId, icon, from, createdAt }: Reaction): Record<string, unknown> {
  return { annotationId, icon, from, createdAt, lastUpdated: new Date(createdAt).toISOString() };
}

/** A thread as get answers it; `apiKey` fills `metadata` as activity records carry it. */
export function threadJson(apiKey: string, thread: Thread): Record<string, unknown> {
  const { agent: _agent, organizationId, documentId, comments, ...annotation } = thread;
  return {
    ...annotation,
    ...(thread.location ? { locationId: thread.location.id } : {}),
    metadata: { apiKey, organizationId, documentId },
    comments: comments.map(commentJson),
  };
}
