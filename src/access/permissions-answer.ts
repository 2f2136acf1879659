import { JsonText } from '../common/envelope.js';
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
}

export interface ResolvedUser {
  userId: string;
  answer: KindAnswer;
  context?: { accessFields: string[] };
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
 * each entry object is encoded once, each kind's answer is joined from those pieces once, and
 * users of that kind splice its bytes.
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
  const object = (entryKeys: string[], entries: Entry[]) => `{${entries.map((entry, i) => entryKeys[i] + piece(entry)).join(',')}}`;

  const encoded = new Map<KindAnswer, Buffer>();
  const json = new JsonText().text('{');
  users.forEach(({ userId, answer, context }, index) => {
    let bytes = encoded.get(answer);
    if (bytes === undefined) {
      let text = `{"organization":{${JSON.stringify(layout.organizationId)}:${piece(answer.organization)}}`;
      if (layout.folderIds && answer.folders) text += `,"folders":${object(folderKeys, answer.folders)}`;
      if (layout.documentIds && answer.documents) text += `,"documents":${object(documentKeys, answer.documents)}`;
      encoded.set(answer, (bytes = Buffer.from(`${text}}`)));
    }
    json.text(`${index ? ',' : ''}${JSON.stringify(userId)}:`);
    // A user's own context goes inside the shared answer, before its closing brace.
    if (context) json.bytes(bytes.subarray(0, -1)).text(`,"context":${JSON.stringify(context)}}`);
    else json.bytes(bytes);
  });
  return json.text('}');
}
