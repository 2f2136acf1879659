import type { OutboxEvent } from './outbox-event.js';

/** How deep into an activity's snapshots mentions and assignees are looked for. */
const MAX_DEPTH = 8;

/**
 * The users an event involves (contract 6.4, "MINE"): those mentioned (`taggedUserContacts`,
 * a comment's `to`), assigned (`assignedTo`), the author of the thread it is on (the
 * annotation's `from`, else its first comment's), and `entityData.involvedUserIds`, read from
 * the activity's `entityData` and `entityTargetData`. The acting user is never involved.
 */
export function involvedUsers(event: OutboxEvent): Set<string> {
  const involved = new Set<string>();
  const data = event.data as { entityData?: unknown; entityTargetData?: unknown };
  const entity = asObject(data.entityData);
  for (const id of Array.isArray(entity?.involvedUserIds) ? entity.involvedUserIds : []) if (typeof id === 'string') involved.add(id);
  const threadAuthor = userIdOf(entity?.from) ?? userIdOf(asObject(Array.isArray(entity?.comments) ? entity.comments[0] : undefined)?.from);
  if (threadAuthor) involved.add(threadAuthor);
  for (const snapshot of [data.entityData, data.entityTargetData]) collectNamed(snapshot, involved, { assignees: true }, 0);
  if (event.actionUser) involved.delete(event.actionUser.userId);
  return involved;
}

/** The users an event mentions (`taggedUserContacts`, a comment's `to`); never the acting user. */
export function mentionedUsers(event: OutboxEvent): Set<string> {
  const mentioned = new Set<string>();
  const data = event.data as { entityData?: unknown; entityTargetData?: unknown };
  for (const snapshot of [data.entityData, data.entityTargetData]) collectNamed(snapshot, mentioned, { assignees: false }, 0);
  if (event.actionUser) mentioned.delete(event.actionUser.userId);
  return mentioned;
}

/** Users named by mention (and, when asked, assignment) anywhere in a snapshot. */
function collectNamed(value: unknown, into: Set<string>, options: { assignees: boolean }, depth: number): void {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) collectNamed(item, into, options, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const tagged of arrayOf(record.taggedUserContacts)) {
    const id = userIdOf(tagged) ?? userIdOf(asObject(tagged)?.contact);
    if (id) into.add(id);
  }
  for (const recipient of arrayOf(record.to)) {
    const id = userIdOf(recipient);
    if (id) into.add(id);
  }
  const assignee = options.assignees ? userIdOf(record.assignedTo) : undefined;
  if (assignee) into.add(assignee);
  for (const entry of Object.values(record)) collectNamed(entry, into, options, depth + 1);
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function userIdOf(value: unknown): string | undefined {
  const id = asObject(value)?.userId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
