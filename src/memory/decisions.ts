import type { Activity } from '../activity/activity-store.js';

/** Decisions a judgment may record (contract part 8). */
export const DECISIONS = [
  'approved',
  'rejected',
  'agree',
  'disagree',
  'endorse',
  'document_approved',
  'document_rejected',
  'comment',
  'resolve',
  'in_progress',
] as const;
export type Decision = (typeof DECISIONS)[number];
export type Side = 'approve' | 'reject';

/** Which way a decision counts; the rest (comment, resolve, in_progress) count for neither. */
export function sideOf(decision: Decision): Side | null {
  if (decision === 'approved' || decision === 'agree' || decision === 'endorse' || decision === 'document_approved') return 'approve';
  if (decision === 'rejected' || decision === 'disagree' || decision === 'document_rejected') return 'reject';
  return null;
}

const BY_ACTION: Record<string, Decision> = {
  'comment_annotation.approve': 'approved',
  'comment_annotation.suggestion_accept': 'approved',
  'comment_annotation.suggestion_reject': 'rejected',
  'comment.accept': 'agree',
  'comment.reject': 'disagree',
};

/** The decision an activity records, if it records one. */
export function decisionOf(activity: Pick<Activity, 'featureType' | 'actionType' | 'entityData'>): Decision | undefined {
  if (activity.featureType === 'custom') {
    const decision = objectOf(activity.entityData)?.decision;
    return typeof decision === 'string' && (DECISIONS as readonly string[]).includes(decision) ? (decision as Decision) : undefined;
  }
  return BY_ACTION[activity.actionType];
}

/** Who made a judgment (upstream's `judgeType`). */
export const JUDGE_TYPES = ['human', 'agent'] as const;
export type JudgeType = (typeof JUDGE_TYPES)[number];

/** What upstream's judgments query filters and answers with, read from the decision activity. */
export interface JudgmentFacets {
  judgeType: JudgeType;
  /** The kind of content judged (`entityData.contentType`), free text. */
  contentType: string | null;
  /** The comment thread judged: `entityData.annotationId`, else the activity's `targetEntityId`. */
  annotationId: string | null;
  /** `entityData.confidence` when a number in [0, 1]. */
  confidence: number | null;
  /** `entityData.agent`: the AI agent that decided, as the caller described it. */
  agent: Record<string, unknown> | null;
}

/**
 * The facets of a decision activity. `judgeType` is `entityData.judgeType` when `human` or
 * `agent`; otherwise `agent` when an `agent` block was sent, else `human` (people decide unless
 * told otherwise).
 */
export function judgmentFacets(activity: Pick<Activity, 'entityData' | 'targetEntityId'>): JudgmentFacets {
  const data = objectOf(activity.entityData) ?? {};
  const agent = objectOf(data.agent) ?? null;
  const judgeType = (JUDGE_TYPES as readonly unknown[]).includes(data.judgeType) ? (data.judgeType as JudgeType) : agent ? 'agent' : 'human';
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value.slice(0, 256) : null);
  const confidence = typeof data.confidence === 'number' && data.confidence >= 0 && data.confidence <= 1 ? data.confidence : null;
  return { judgeType, contentType: text(data.contentType), annotationId: text(data.annotationId) ?? activity.targetEntityId ?? null, confidence, agent };
}

/** Keys whose string values are comment text, in entityData and entityTargetData. */
const TEXT_KEYS = ['text', 'commentText', 'comment', 'body', 'title'];

/**
 * What a judgment's search matches (contract part 8): the reasoning, the comment text of
 * entityData and entityTargetData (their own text fields and those of their `comments`), and
 * the rendered display message. The reason shown in `topReasons` is the reasoning when given,
 * else the first comment text, else the message.
 */
export function judgmentText(activity: Pick<Activity, 'entityData' | 'entityTargetData' | 'displayMessageTemplate' | 'displayMessageTemplateData'>): {
  text: string;
  reason: string | null;
} {
  const reasoning = objectOf(activity.entityData)?.reasoning;
  const comments = [activity.entityData, activity.entityTargetData].flatMap(commentTexts);
  const message = activity.displayMessageTemplate ? renderTemplate(activity.displayMessageTemplate, activity.displayMessageTemplateData ?? {}) : '';
  const parts = [typeof reasoning === 'string' ? reasoning : '', ...comments, message].map((part) => part.trim()).filter(Boolean);
  const reason = (typeof reasoning === 'string' && reasoning.trim()) || comments.find((c) => c.trim()) || message || null;
  return { text: parts.join('\n'), reason: reason === null ? null : reason.trim().slice(0, 2000) };
}

/** `{{a.b}}` placeholders filled from the template data; unknown ones render empty. */
export function renderTemplate(template: string, data: Record<string, unknown>): string {
  return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path: string) => {
    let value: unknown = data;
    for (const key of path.split('.')) value = objectOf(value)?.[key];
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
  });
}

function commentTexts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  const object = objectOf(value);
  if (!object) return [];
  const comments = Array.isArray(object.comments) ? object.comments : [];
  return [object, ...comments].flatMap(ownTexts);
}

/** The string values of an object's text keys. */
function ownTexts(value: unknown): string[] {
  const object = objectOf(value);
  return TEXT_KEYS.flatMap((key) => (typeof object?.[key] === 'string' ? [object[key] as string] : []));
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A judgment in the contract's fields (part 8). */
export interface JudgmentFields {
  id: string;
  organizationId: string;
  documentId: string;
  decision: Decision;
  recommendation: Side | null;
  reviewerId: string;
  reason: string | null;
  timestamp: number;
}
