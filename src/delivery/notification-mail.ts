import { normaliseDomain } from '../workspace/domains.js';
import { mentionedUsers } from './involved-users.js';
import type { OutboxEvent } from './outbox-event.js';

/** A person as a mail names them. */
export interface MailPerson {
  userId: string;
  name: string | null;
  email: string | null;
  /** What the mail calls them: their name, else their e-mail address, else their id. */
  label: string;
}

/**
 * What a notification mail's templates (and a provider's dynamic template data) are given:
 * every value the bundled templates use, and more for templates an operator writes.
 */
export interface NotificationMailModel {
  /** The event type (`comment.add`, ...) and the feature it comes from. */
  event: string;
  source: string;
  actor: MailPerson | null;
  recipient: MailPerson;
  /** The recipient is mentioned in the event (a provider's tag template is used then). */
  mentioned: boolean;
  organizationId: string;
  document: { id: string; name: string | null; label: string };
  /** The comment the event is about, as far as the activity tells. */
  comment: { annotationId: string | null; text: string | null };
  /** The change an event records (`changes` of a status, priority or assignment change): its first field. */
  change: { field: string; from: string | null; to: string | null } | null;
  /** Where the event happened in the product, when the key allows that address (see `linkOf`). */
  link: string | null;
  /** The key's `fromCompany`. */
  company: string;
  /** When the event happened, ISO 8601. */
  timestamp: string;
}

/** The longest comment text a mail quotes. */
const MAX_QUOTE = 2000;

/**
 * The model of one recipient's mail about an event, read from the activity the event carries
 * (contract 6.4): who acted, on which document, the comment's text and the change it made.
 */
export function notificationMailModel(
  event: OutboxEvent,
  recipient: { userId: string; name: string | null; email: string | null },
  context: { documentName: string | null; allowedDomains: readonly string[]; company: string },
): NotificationMailModel {
  const data = event.data as Record<string, unknown>;
  const entity = asObject(data.entityData);
  const target = asObject(data.entityTargetData);
  const actor = event.actionUser;
  return {
    event: event.type,
    source: event.source,
    actor: actor ? person(actor.userId, stringOf(actor.name), stringOf(actor.email)) : null,
    recipient: person(recipient.userId, recipient.name, recipient.email),
    mentioned: mentionedUsers(event).has(recipient.userId),
    organizationId: event.organizationId,
    document: { id: event.documentId, name: context.documentName, label: context.documentName || event.documentId },
    comment: { annotationId: stringOf(data.targetEntityId), text: quote(commentText(target) ?? commentText(entity) ?? lastCommentText(entity)) },
    change: firstChange(data.changes),
    link: linkOf([target, entity], context.allowedDomains),
    company: context.company,
    timestamp: new Date(typeof data.timestamp === 'number' ? data.timestamp : Date.now()).toISOString(),
  };
}

function person(userId: string, name: string | null, email: string | null): MailPerson {
  return { userId, name, email, label: name || email || userId };
}

function commentText(snapshot: Record<string, unknown> | undefined): string | null {
  return stringOf(snapshot?.commentText);
}

/** An annotation snapshot's latest comment (a thread's `comments`). */
function lastCommentText(snapshot: Record<string, unknown> | undefined): string | null {
  const comments = Array.isArray(snapshot?.comments) ? snapshot.comments : [];
  return commentText(asObject(comments[comments.length - 1]));
}

function quote(text: string | null): string | null {
  if (text === null) return null;
  return text.length <= MAX_QUOTE ? text : `${text.slice(0, MAX_QUOTE - 1)}…`;
}

/** `changes: { status: { from, to } }` as one field; values that are objects show their name (or id). */
function firstChange(changes: unknown): NotificationMailModel['change'] {
  const entries = Object.entries(asObject(changes) ?? {});
  for (const [field, value] of entries) {
    const change = asObject(value);
    if (change && ('from' in change || 'to' in change)) return { field, from: labelOf(change.from), to: labelOf(change.to) };
  }
  return null;
}

function labelOf(value: unknown): string | null {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  const record = asObject(value);
  return stringOf(record?.name) ?? stringOf(record?.id) ?? stringOf(record?.userId) ?? stringOf(record?.email);
}

/**
 * The page the event happened on (`pageInfo.url` of the comment or its annotation), only when
 * it is an http(s) address on one of the key's allowed domains (`*.example.com` covers its
 * subdomains): a mail links to the product it comes from, never elsewhere.
 */
export function linkOf(snapshots: readonly (Record<string, unknown> | undefined)[], allowedDomains: readonly string[]): string | null {
  for (const snapshot of snapshots) {
    const url = stringOf(asObject(snapshot?.pageInfo)?.url);
    if (!url) continue;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      continue;
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') continue;
    // Normalised as allowed domains are stored, so the two compare as they are.
    const host = normaliseDomain(parsed.href);
    if (!host) continue;
    const allowed = allowedDomains.some((domain) => (domain.startsWith('*.') ? host.endsWith(domain.slice(1)) : host === domain));
    if (allowed) return parsed.href;
  }
  return null;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
