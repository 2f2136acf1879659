import { JsonText } from '../common/envelope.js';
import type { AccessRole } from './entities/grant.entity.js';
import type { PermissionResolver, RequestedResources } from './permission-world.js';
import type { PermissionEntry, resolveOrganization } from './resolve-permission.js';

export type MissingEntry = { error: string; errorCode: 'does_not_exist' };
type Entry = PermissionEntry | MissingEntry;

/** What permissions get asked for: the ids in request order, deduplicated; absent when not asked. */
export interface PermissionsLayout {
  organizationId: string;
  folderIds?: readonly string[];
  documentIds?: readonly string[];
}

/**
 * The answer of one kind of user (rest-interface part 4) but for `context`, with entries in the
 * layout's order. Users of one kind share one answer; entries are shared objects too.
 */
export interface KindAnswer {
  organization: ReturnType<typeof resolveOrganization>;
  folders?: Entry[];
  documents?: Entry[];
  /**
   * Set when this answer is `base` (the user's role's answer) with the entries at these
   * positions changed by the user's own grants: it is encoded by splicing those into `base`'s bytes.
   */
  patch?: { base: KindAnswer; folders: readonly number[]; documents: readonly number[] };
}

/**
 * An answer encoded: its bytes in order (one buffer for a role's answer; a patched one's are
 * slices of its base's with its own entries between them, never copied), and for a role's
 * answer where each entry's JSON lies in it (byte offsets, end exclusive).
 */
interface Encoded {
  chunks: Buffer[];
  folders: [number, number][];
  documents: [number, number][];
}

export interface ResolvedUser {
  userId: string;
  answer: KindAnswer;
  context?: { accessFields: string[] };
}

const MISSING = {
  folder: { error: 'Folder does not exist', errorCode: 'does_not_exist' } as MissingEntry,
  document: { error: 'Document does not exist', errorCode: 'does_not_exist' } as MissingEntry,
};

/**
 * Each user's answer (but for `context`), by user id. Users without grants of their own below
 * the organization share their role's answer; a user with some gets that answer with only the
 * entries their grants reach worked out again (`patch`), so the work grows with the grants that
 * matter, not with users × resources. Users of one kind (`PermissionResolver.kindOf`) share one
 * answer object, which `permissionsJson` encodes once.
 */
export function userAnswers(
  resolver: PermissionResolver,
  userIds: readonly string[],
  requested: RequestedResources,
  asked: { folders: boolean; documents: boolean },
): Map<string, KindAnswer> {
  const byRole = new Map<string, KindAnswer>();
  const roleAnswer = (role: AccessRole | undefined): KindAnswer => {
    let answer = byRole.get(role ?? '');
    if (!answer) {
      answer = { organization: resolver.organizationEntry(role) };
      if (asked.folders) answer.folders = resolver.roleEntries(role, 'folder', requested.folder, requested.exists.folder, MISSING.folder);
      if (asked.documents) answer.documents = resolver.roleEntries(role, 'document', requested.document, requested.exists.document, MISSING.document);
      byRole.set(role ?? '', answer);
    }
    return answer;
  };
  const answerOf = (userId: string): KindAnswer => {
    const base = roleAnswer(resolver.organizationRole(userId));
    const changed = resolver.personalPositions(userId, requested);
    if (!changed.folder.length && !changed.document.length) return base;
    const answer: KindAnswer = { organization: base.organization, patch: { base, folders: changed.folder, documents: changed.document } };
    for (const [name, type] of [
      ['folders', 'folder'],
      ['documents', 'document'],
    ] as const) {
      const entries = base[name];
      if (!entries) continue;
      const own = entries.slice();
      for (const at of changed[type]) own[at] = resolver.permission(userId, { type, id: requested[type][at]! });
      answer[name] = own;
    }
    return answer;
  };
  const byKind = new Map<string, KindAnswer>();
  const answers = new Map<string, KindAnswer>();
  for (const userId of userIds) {
    const kind = resolver.kindOf(userId);
    let answer = byKind.get(kind);
    if (!answer) byKind.set(kind, (answer = answerOf(userId)));
    answers.set(userId, answer);
  }
  return answers;
}

/** The per-user map of permissions get as objects (the NOT_FOUND details carry it). */
export function permissionsMap(layout: PermissionsLayout, users: readonly ResolvedUser[]): Record<string, unknown> {
  // Object.fromEntries makes own properties whatever the ids (an id of `__proto__` included).
  const byId = (ids: readonly string[], entries: Entry[]) => Object.fromEntries(ids.map((id, i) => [id, entries[i]]));
  return Object.fromEntries(
    users.map(({ userId, answer, context }) => [
      userId,
      {
        organization: { [layout.organizationId]: answer.organization },
        ...(layout.folderIds && answer.folders ? { folders: byId(layout.folderIds, answer.folders) } : {}),
        ...(layout.documentIds && answer.documents ? { documents: byId(layout.documentIds, answer.documents) } : {}),
        ...(context ? { context } : {}),
      },
    ]),
  );
}

/**
 * The same map as JSON. 100 users × 100 resources is 10,000 entries but few distinct ones:
 * each entry object is encoded once, each role's answer is joined from those pieces once, users
 * of the same kind splice its bytes, and an answer that differs from its role's in a few entries
 * (`patch`) is that answer's bytes with those entries put in: its cost is what differs.
 */
export function permissionsJson(layout: PermissionsLayout, users: readonly ResolvedUser[]): JsonText {
  const pieces = new Map<object, string>();
  const piece = (entry: object) => {
    let json = pieces.get(entry);
    if (json === undefined) pieces.set(entry, (json = JSON.stringify(entry)));
    return json;
  };
  const keys = (ids: readonly string[] | undefined) => ids?.map((id) => `${JSON.stringify(id)}:`) ?? [];
  const folderKeys = keys(layout.folderIds);
  const documentKeys = keys(layout.documentIds);

  /** Joins an answer from its pieces, noting each entry's byte span. */
  const joined = (answer: KindAnswer): Encoded => {
    const parts: string[] = [];
    let length = 0;
    const push = (text: string) => {
      parts.push(text);
      length += Buffer.byteLength(text);
    };
    const spans = { folders: [] as [number, number][], documents: [] as [number, number][] };
    const object = (name: 'folders' | 'documents', entryKeys: string[], entries: Entry[]) => {
      push(`,"${name}":{`);
      entries.forEach((entry, i) => {
        push(`${i ? ',' : ''}${entryKeys[i]}`);
        const start = length;
        push(piece(entry));
        spans[name].push([start, length]);
      });
      push('}');
    };
    push(`{"organization":{${JSON.stringify(layout.organizationId)}:${piece(answer.organization)}}`);
    if (layout.folderIds && answer.folders) object('folders', folderKeys, answer.folders);
    if (layout.documentIds && answer.documents) object('documents', documentKeys, answer.documents);
    push('}');
    return { chunks: [Buffer.from(parts.join(''))], ...spans };
  };
  const pieceBytes = new Map<object, Buffer>();
  /** `base`'s bytes with the patched entries put in, in order. */
  const spliced = (answer: KindAnswer, patch: NonNullable<KindAnswer['patch']>): Buffer[] => {
    const base = encodedOf(patch.base);
    const bytes = base.chunks[0]!;
    const chunks: Buffer[] = [];
    let from = 0;
    for (const [name, positions] of [
      ['folders', patch.folders],
      ['documents', patch.documents],
    ] as const) {
      for (const at of positions) {
        const [start, end] = base[name][at]!;
        const entry = answer[name]![at]!;
        let own = pieceBytes.get(entry);
        if (own === undefined) pieceBytes.set(entry, (own = Buffer.from(piece(entry))));
        chunks.push(bytes.subarray(from, start), own);
        from = end;
      }
    }
    chunks.push(bytes.subarray(from));
    return chunks;
  };
  const sharers = new Map<KindAnswer, number>();
  for (const { answer } of users) sharers.set(answer, (sharers.get(answer) ?? 0) + 1);
  const encoded = new Map<KindAnswer, Encoded>();
  const encodedOf = (answer: KindAnswer): Encoded => {
    let found = encoded.get(answer);
    if (found === undefined) {
      if (answer.patch) {
        const chunks = spliced(answer, answer.patch);
        // Joined once when several users share it: then each of them adds one buffer, not many.
        found = { chunks: (sharers.get(answer) ?? 0) > 1 ? [Buffer.concat(chunks)] : chunks, folders: [], documents: [] };
      } else found = joined(answer);
      encoded.set(answer, found);
    }
    return found;
  };

  const json = new JsonText().text('{');
  users.forEach(({ userId, answer, context }, index) => {
    const { chunks } = encodedOf(answer);
    json.text(`${index ? ',' : ''}${JSON.stringify(userId)}:`);
    for (let i = 0; i < chunks.length - 1; i++) json.bytes(chunks[i]!);
    // A user's own context goes inside the shared answer, before its closing brace.
    const last = chunks[chunks.length - 1]!;
    if (context) json.bytes(last.subarray(0, -1)).text(`,"context":${JSON.stringify(context)}}`);
    else json.bytes(last);
  });
  return json.text('}');
}
