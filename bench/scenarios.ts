import { effectiveDocumentAccess, effectiveFolderAccess, type FolderAccessNode } from '../src/directory/effective-access.js';
import type { PageTokens } from '../src/common/paging.js';
import type { AccessType } from '../src/common/access-types.js';
import { idsOf } from '../src/directory/folder-paths.js';
import { judgmentFacets } from '../src/memory/decisions.js';
import { threadJson, type Annotation, type Comment } from '../src/comments/threads.js';

/**
 * Benchmark scenarios: each names an operation, the request the service gets, and (for a ratio)
 * the same work done bare, with SQL on the same database and the same credential lookup. Add a
 * scenario by adding an entry here; put the data it needs in `seed.ts`.
 */
export interface Scenario {
  name: string;
  path: string;
  body: (seed: Seed) => unknown;
  headers: (seed: Seed) => Record<string, string>;
  message: string;
  /** The baseline's work: returns the `data` of the response. Absent: service numbers only. */
  baseline?: (db: BareDatabase, request: BareRequest) => Promise<unknown>;
  /**
   * Fields the service's answer holds beside `data`, made from it (judgments: upstream's
   * `results` and `total`, see docs/compatibility.md): the baseline writes them too, so both
   * sides send the same answer.
   */
  beside?: (data: unknown) => Record<string, unknown>;
  /**
   * Run before the data grows: `activities-small` while the activity log holds 10,000 records
   * (before 1,000,000), `judgments-small` while memory holds 1,000 judgments (before 100,000).
   */
  phase?: 'activities-small' | 'judgments-small';
  /**
   * Run beside the measured load (not the warm-up) by one more client, until `running()` is
   * false: returns latencies in ms, reported as the scenario's `probe` row.
   */
  probe?: { name: string; run: (port: number, seed: Seed, running: () => boolean) => Promise<number[]> };
  /**
   * The name of a scenario this one's p50 is compared with (permissions get's 100 × 100 against
   * its 1 × 1): both run on the service in alternating turns (`BENCH_PAIRS`), and the ratio
   * reported and judged is the median of the turns' ratios, as for a baseline. Run one after the
   * other, ten seconds apart, the same ratio moved by a fifth between runs on a 2-core machine.
   */
  against?: string;
}

/** What seeding produced; scenarios read their ids and tokens from here. */
export interface Seed {
  apiKey: string;
  authToken: string;
  workspaceId: string;
  workspaceToken: string;
  /** Organization with 100,000 documents in 10,000 folders. */
  bigOrganizationId: string;
  /** Token of the last page of documents (pages of 1000). */
  lastDocumentsPageToken: string;
  /** 100 users, 50 folders and 50 documents of the big organization, for permissions get. */
  permissionUserIds: string[];
  permissionFolderIds: string[];
  permissionDocumentIds: string[];
  /** 100 other users, each with grants of their own on two of those documents (no two alike). */
  soloUserIds: string[];
  /** Organization of the activity log; its documents hold 1,000 activities each. */
  activityOrganizationId: string;
  activityDocumentId: string;
  /** Document and editor holding a 1 MiB text (in the activity organization). */
  crdtDocumentId: string;
  crdtEditorId: string;
  /** Organization and document whose judgments suggest draws on. */
  memoryOrganizationId: string;
  memoryDocumentId: string;
  /** Token of page 1,000 (pages of 100) of the whole organization's activities, newest first. */
  deepActivitiesPageToken?: string;
  /** Document of 10,000 comment threads (in the activity organization), and the token of its page 51 of 100. */
  commentsDocumentId: string;
  deepCommentsPageToken?: string;
}

export interface BareRequest {
  headers: Record<string, string | string[] | undefined>;
  body: { data: Record<string, unknown> };
  /** Keyed hash of a credential, as the service computes it. */
  lookupHash: (secret: string) => string;
  pageTokens: PageTokens;
}

export interface BareDatabase {
  query<T>(sql: string, params: unknown[]): Promise<T[]>;
}

const keyHeaders = (seed: Seed) => ({ 'x-svc-api-key': seed.apiKey, 'x-svc-auth-token': seed.authToken });

/** The API-key lookup every A-level operation does first. */
async function bareApiKeyAuth(db: BareDatabase, request: BareRequest): Promise<string> {
  const apiKey = request.headers['x-svc-api-key'];
  const token = request.headers['x-svc-auth-token'];
  if (typeof apiKey !== 'string' || typeof token !== 'string') throw new Error('unauthenticated');
  const rows = await db.query<{ api_key_id: string }>(
    'SELECT k.id AS api_key_id, k.workspace_id AS workspace_id FROM api_key_auth_token t INNER JOIN api_key k ON k.id = t.api_key_id WHERE t.token_hash = ? AND t.api_key_id = ?',
    [request.lookupHash(token), apiKey],
  );
  if (!rows[0]) throw new Error('unauthenticated');
  return rows[0].api_key_id;
}

/** Get documents done bare: the page, the key's default, the page's folders and their ancestors. */
async function bareDocumentsPage(db: BareDatabase, request: BareRequest): Promise<unknown> {
  const apiKeyId = await bareApiKeyAuth(db, request);
  const { organizationId, pageSize, pageToken } = request.body.data as { organizationId: string; pageSize: number; pageToken?: string };
  const filters = { organizationId, documentIds: null, folderId: null };
  const after = pageToken ? request.pageTokens.decode<[number, string]>(apiKeyId, 'documents/get', filters, pageToken) : undefined;
  const [settings] = await db.query<{ settings: string }>('SELECT settings FROM api_key WHERE id = ?', [apiKeyId]);
  const keyDefault = (JSON.parse(settings!.settings) as { defaultDocumentAccessType: AccessType }).defaultDocumentAccessType;
  const rows = await db.query<{
    id: string;
    name: string | null;
    folder_id: string | null;
    access_type: AccessType | null;
    disabled: number | boolean;
    metadata: string;
    created_at: number | string;
    last_updated: number | string;
  }>(
    `SELECT id, name, folder_id, access_type, disabled, metadata, created_at, last_updated FROM document
      WHERE api_key_id = ? AND organization_id = ?${after ? ' AND (created_at, id) > (?, ?)' : ''}
      ORDER BY created_at, id LIMIT ?`,
    after ? [apiKeyId, organizationId, after[0], after[1], pageSize + 1] : [apiKeyId, organizationId, pageSize + 1],
  );
  const page = rows.slice(0, pageSize);
  const folderIds = [...new Set(page.flatMap((d) => (d.folder_id ? [d.folder_id] : [])))];
  const folderAccess = new Map<string, AccessType>();
  if (folderIds.length) {
    const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(',');
    type Row = { id: string; path: string; access_type: AccessType | null };
    const folders = await db.query<Row>(
      `SELECT id, path, access_type FROM folder WHERE api_key_id = ? AND organization_id = ? AND id IN (${placeholders(folderIds.length)})`,
      [apiKeyId, organizationId, ...folderIds],
    );
    const ancestorIds = [...new Set(folders.flatMap((f) => idsOf(f.path).slice(0, -1)))];
    const ancestors = ancestorIds.length
      ? await db.query<Row>(
          `SELECT id, path, access_type FROM folder WHERE api_key_id = ? AND organization_id = ? AND id IN (${placeholders(ancestorIds.length)})`,
          [apiKeyId, organizationId, ...ancestorIds],
        )
      : [];
    const node = (f: Row): FolderAccessNode => ({ id: f.id, pathIds: idsOf(f.path), accessType: f.access_type });
    const known = new Map([...ancestors, ...folders].map((f) => [f.id, node(f)]));
    for (const folder of folders) folderAccess.set(folder.id, effectiveFolderAccess(node(folder), known, keyDefault));
  }
  return page.map((d) => ({
    ...(JSON.parse(d.metadata) as object),
    id: d.id,
    documentName: d.name,
    disabled: Boolean(d.disabled),
    accessType: effectiveDocumentAccess(d.access_type, d.folder_id ? folderAccess.get(d.folder_id) : undefined, keyDefault),
    ...(d.folder_id ? { folderId: d.folder_id } : {}),
    createdAt: Number(d.created_at),
    lastUpdated: Number(d.last_updated),
  }));
}

/** Get activities done bare: one document's newest page, records rebuilt from their columns. */
async function bareActivitiesPage(db: BareDatabase, request: BareRequest): Promise<unknown> {
  const apiKeyId = await bareApiKeyAuth(db, request);
  const { organizationId, documentId, pageSize } = request.body.data as { organizationId: string; documentId: string; pageSize: number };
  const rows = await db.query<{
    id: string;
    document_id: string;
    feature_type: string;
    action_type: string;
    target_entity_id: string | null;
    timestamp: number | string;
    body: string;
  }>(
    `SELECT id, document_id, feature_type, action_type, target_entity_id, timestamp, body FROM activity
      WHERE api_key_id = ? AND organization_id = ? AND document_id = ? ORDER BY timestamp DESC, id DESC LIMIT ?`,
    [apiKeyId, organizationId, documentId, pageSize + 1],
  );
  const page = rows.slice(0, pageSize);
  const last = page[page.length - 1];
  const filters = { organizationId, documentId, targetEntityId: null, featureTypes: null, actionTypes: null, userId: null, activityIds: null, order: 'desc' };
  if (rows.length > pageSize && last) request.pageTokens.encode(apiKeyId, 'activities/get', filters, [Number(last.timestamp), last.id]);
  return page.map((row) => ({
    id: row.id,
    featureType: row.feature_type,
    actionType: row.action_type,
    ...(row.target_entity_id !== null ? { targetEntityId: row.target_entity_id } : {}),
    ...(JSON.parse(row.body) as object),
    metadata: { apiKey: apiKeyId, documentId: row.document_id, organizationId },
    timestamp: Number(row.timestamp),
  }));
}

/** Get CRDT data done bare: the same row, its stored view parsed into the record. */
async function bareCrdtGet(db: BareDatabase, request: BareRequest): Promise<unknown> {
  const apiKeyId = await bareApiKeyAuth(db, request);
  const { organizationId, documentId, editorId } = request.body.data as { organizationId: string; documentId: string; editorId: string };
  const rows = await db.query<{ editor_id: string; data: string; last_update: number | string; last_updated_by: string | null; session_id: string | null }>(
    'SELECT editor_id, data, last_update, last_updated_by, session_id FROM crdt_editor WHERE api_key_id = ? AND organization_id = ? AND document_id = ? AND editor_id = ? ORDER BY created_at, editor_id',
    [apiKeyId, organizationId, documentId, editorId],
  );
  return rows.map((row) => ({
    id: row.editor_id,
    data: JSON.parse(row.data) as unknown,
    lastUpdate: new Date(Number(row.last_update)).toISOString(),
    lastUpdatedBy: row.last_updated_by,
    sessionId: row.session_id,
  }));
}

/** Judgments query done bare: the newest judgments of the organization, each with its activity's facets. */
async function bareJudgmentsQuery(db: BareDatabase, request: BareRequest): Promise<unknown> {
  const apiKeyId = await bareApiKeyAuth(db, request);
  const { organizationId, limit } = request.body.data as { organizationId: string; limit: number };
  const rows = await db.query<{
    decision: string;
    side: string | null;
    reviewer_id: string;
    reason: string | null;
    id: string;
    document_id: string;
    target_entity_id: string | null;
    timestamp: number | string;
    body: string;
  }>(
    `SELECT j.decision, j.side, j.reviewer_id, j.reason, a.id, a.document_id, a.target_entity_id, a.timestamp, a.body
      FROM judgment j JOIN activity a ON a.api_key_id = j.api_key_id AND a.organization_id = j.organization_id AND a.id = j.activity_id
      WHERE j.api_key_id = ? AND j.organization_id = ? ORDER BY j.timestamp DESC, j.activity_id DESC LIMIT ?`,
    [apiKeyId, organizationId, limit],
  );
  return rows.map((row) => {
    const body = JSON.parse(row.body) as { actionUser: Record<string, unknown>; entityData?: unknown };
    const timestamp = Number(row.timestamp);
    const facets = judgmentFacets({ entityData: body.entityData, ...(row.target_entity_id !== null ? { targetEntityId: row.target_entity_id } : {}) });
    return {
      id: row.id,
      organizationId,
      documentId: row.document_id,
      decision: row.decision,
      recommendation: row.side,
      reviewerId: row.reviewer_id,
      reason: row.reason,
      timestamp,
      recordId: row.id,
      reasoning: row.reason,
      ...facets,
      actionUser: body.actionUser,
      createdAt: timestamp,
    };
  });
}

/**
 * Comment annotations get done bare: the same two statements (a keyset page of threads, then
 * their comments) and the same rendering of each thread.
 */
async function bareCommentsPage(db: BareDatabase, request: BareRequest): Promise<unknown> {
  const apiKeyId = await bareApiKeyAuth(db, request);
  const { organizationId, documentId, pageSize, pageToken } = request.body.data as {
    organizationId: string;
    documentId: string;
    pageSize: number;
    pageToken?: string;
  };
  const filters = { organizationId, documentIds: [documentId], order: 'desc' };
  const after = pageToken ? request.pageTokens.decode<[number, string]>(apiKeyId, 'commentannotations/get', filters, pageToken) : undefined;
  const rows = await db.query<{ body: string }>(
    `SELECT body FROM comment_annotation WHERE api_key_id = ? AND organization_id = ? AND document_id = ?${after ? ' AND (last_updated, annotation_id) < (?, ?)' : ''}
      ORDER BY last_updated DESC, annotation_id DESC LIMIT ?`,
    after ? [apiKeyId, organizationId, documentId, after[0], after[1], pageSize + 1] : [apiKeyId, organizationId, documentId, pageSize + 1],
  );
  const threads = rows.slice(0, pageSize).map((row) => ({ ...(JSON.parse(row.body) as Annotation), comments: [] as Comment[] }));
  const byId = new Map(threads.map((t) => [t.annotationId, t]));
  const comments = await db.query<{ annotation_id: string; body: string }>(
    `SELECT annotation_id, body FROM comment WHERE api_key_id = ? AND organization_id = ? AND annotation_id IN (${threads.map(() => '?').join(',')}) ORDER BY created_at, comment_id`,
    [apiKeyId, organizationId, ...threads.map((t) => t.annotationId)],
  );
  for (const row of comments) byId.get(row.annotation_id)?.comments.push(JSON.parse(row.body) as Comment);
  // The next page's token is made as the service makes it (it is answered beside `data`).
  const last = threads[threads.length - 1];
  if (rows.length > pageSize && last) request.pageTokens.encode(apiKeyId, 'commentannotations/get', filters, [last.lastUpdated, last.annotationId]);
  return threads.map((thread) => threadJson(apiKeyId, thread));
}

const commentsPage = (seed: Seed, pageToken?: string) => ({
  data: { organizationId: seed.activityOrganizationId, documentId: seed.commentsDocumentId, pageSize: 100, ...(pageToken ? { pageToken } : {}) },
});

/**
 * A new thread whose first comment mentions three users, with both triggers on or both left at
 * upstream's default (off). On, the organization's team of ten (seeded with the comments) makes
 * nine inbox entries per add.
 */
const threadWithThreeMentions = (seed: Seed, triggers: boolean) => ({
  data: {
    organizationId: seed.activityOrganizationId,
    documentId: 'comments-add-doc',
    createOrganization: true,
    createDocument: true,
    commentAnnotations: [
      {
        commentData: [
          {
            commentText: 'Hey {{reviewer-1}}, {{reviewer-2}} and {{reviewer-3}}: please check',
            from: { userId: 'author-1', name: 'Author' },
            taggedUserContacts: [1, 2, 3].map((n) => ({ userId: `reviewer-${n}`, contact: { userId: `reviewer-${n}`, name: `Reviewer ${n}` } })),
            ...(triggers ? { triggerActivities: true, triggerNotification: true } : {}),
          },
        ],
      },
    ],
  },
});

/**
 * How long after a notifying add's answer its inbox entry shows in `notifications/get`: one
 * client adds a thread (as the load does, to a document of its own), then reads the inbox of a
 * user it notifies until the thread's entry is there, every 2 ms; then the next add. The reader
 * may see only that document, so its inbox holds the probe's entries alone (the team's inboxes
 * grow by one entry per add of the load, and reading one filtered to a document would measure that).
 */
async function inboxVisibility(port: number, seed: Seed, running: () => boolean): Promise<number[]> {
  const post = async (path: string, data: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders(seed) },
      body: JSON.stringify({ data }),
    });
    const body = (await response.json()) as { result?: { data?: unknown } };
    if (!response.ok) throw new Error(`${path}: ${JSON.stringify(body)}`);
    return body.result!.data;
  };
  const latencies: number[] = [];
  const request = threadWithThreeMentions(seed, true).data;
  const inbox = { organizationId: seed.activityOrganizationId, userId: 'inbox-probe-reader', pageSize: 5 };
  await post('/v2/commentannotations/add', { ...request, documentId: 'inbox-probe-doc' });
  await post('/v2/users/add', { organizationId: seed.activityOrganizationId, documentId: 'inbox-probe-doc', users: [{ userId: 'inbox-probe-reader' }] });
  while (running()) {
    const added = (await post('/v2/commentannotations/add', { ...request, documentId: 'inbox-probe-doc' })) as Record<string, { annotationId: string }>;
    const annotationId = Object.values(added)[0]!.annotationId;
    const answered = performance.now();
    for (;;) {
      const entries = (await post('/v2/notifications/get', inbox)) as { notificationSourceData?: { annotationId?: string } }[];
      if (entries.some((entry) => entry.notificationSourceData?.annotationId === annotationId)) break;
      if (performance.now() - answered > 30_000) throw new Error('inbox probe: no entry 30 s after the answer');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    latencies.push(performance.now() - answered);
  }
  return latencies;
}

const activitiesOfDocument = (seed: Seed) => ({ data: { organizationId: seed.activityOrganizationId, documentId: seed.activityDocumentId, pageSize: 100 } });

const suggestInDocument = (seed: Seed) => ({
  data: { query: 'image missing alt text', organizationId: seed.memoryOrganizationId, documentId: seed.memoryDocumentId },
});

/** The comment add with upstream's defaults, which PostgreSQL's bare `pgbench` of the same writes is compared with. */
export const UPSTREAM_COMMENT_ADD = 'commentannotations/add, 3 mentions';

export const SCENARIOS: Scenario[] = [
  {
    name: 'memory/suggest, document scope, at 1k judgments',
    path: '/v2/memory/suggest',
    message: '',
    body: suggestInDocument,
    headers: keyHeaders,
    phase: 'judgments-small',
  },
  {
    name: 'memory/suggest, document scope, at 100k judgments',
    path: '/v2/memory/suggest',
    message: '',
    body: suggestInDocument,
    headers: keyHeaders,
  },
  {
    name: 'memory/judgments/query, organization, 20 newest, at 100k judgments',
    path: '/v2/memory/judgments/query',
    message: 'Judgments retrieved successfully.',
    body: (seed) => ({ data: { organizationId: seed.memoryOrganizationId, limit: 20 } }),
    headers: keyHeaders,
    baseline: bareJudgmentsQuery,
    beside: (data) => ({ results: data, total: (data as unknown[]).length }),
  },
  {
    name: 'commentannotations/get, 10k threads, page 1 of 100',
    path: '/v2/commentannotations/get',
    message: 'Annotation(s) fetched successfully.',
    body: (seed) => commentsPage(seed),
    headers: keyHeaders,
    baseline: bareCommentsPage,
  },
  {
    name: 'commentannotations/get, 10k threads, page 51 of 100',
    path: '/v2/commentannotations/get',
    message: 'Annotation(s) fetched successfully.',
    body: (seed) => commentsPage(seed, seed.deepCommentsPageToken),
    headers: keyHeaders,
    baseline: bareCommentsPage,
  },
  {
    name: `${UPSTREAM_COMMENT_ADD} (upstream defaults: no activity, no notification)`,
    path: '/v2/commentannotations/add',
    message: 'Comment Annotation(s) added successfully.',
    body: (seed) => threadWithThreeMentions(seed, false),
    headers: keyHeaders,
  },
  {
    name: 'commentannotations/add, 3 mentions, activities and notifications on (9 inboxes)',
    path: '/v2/commentannotations/add',
    message: 'Comment Annotation(s) added successfully.',
    body: (seed) => threadWithThreeMentions(seed, true),
    headers: keyHeaders,
    probe: { name: 'inbox entry visible after the answer', run: inboxVisibility },
  },
  {
    name: 'crdt/get, 1 MiB text',
    path: '/v2/crdt/get',
    message: 'CRDT data retrieved successfully.',
    body: (seed) => ({ data: { organizationId: seed.activityOrganizationId, documentId: seed.crdtDocumentId, editorId: seed.crdtEditorId } }),
    headers: keyHeaders,
    baseline: bareCrdtGet,
  },
  {
    name: 'activities/get, documentId, page of 100, at 10k records',
    path: '/v2/activities/get',
    message: 'Activity(s) retrieved successfully.',
    body: activitiesOfDocument,
    headers: keyHeaders,
    phase: 'activities-small',
  },
  {
    name: 'activities/get, documentId, page of 100, at 1M records',
    path: '/v2/activities/get',
    message: 'Activity(s) retrieved successfully.',
    body: activitiesOfDocument,
    headers: keyHeaders,
    baseline: bareActivitiesPage,
  },
  {
    name: 'activities/get, whole organization, page 1 of 100 (1M)',
    path: '/v2/activities/get',
    message: 'Activity(s) retrieved successfully.',
    body: (seed) => ({ data: { organizationId: seed.activityOrganizationId, pageSize: 100 } }),
    headers: keyHeaders,
  },
  {
    name: 'activities/get, whole organization, page 1,000 of 100 (1M)',
    path: '/v2/activities/get',
    message: 'Activity(s) retrieved successfully.',
    body: (seed) => ({ data: { organizationId: seed.activityOrganizationId, pageSize: 100, pageToken: seed.deepActivitiesPageToken } }),
    headers: keyHeaders,
  },
  {
    name: 'domains/get (A-level read)',
    path: '/v2/workspace/domains/get',
    message: 'Allowed domains retrieved successfully.',
    body: () => ({ data: {} }),
    headers: keyHeaders,
    baseline: async (db, request) => {
      const apiKeyId = await bareApiKeyAuth(db, request);
      const rows = await db.query<{ domain: string }>('SELECT domain FROM allowed_domain WHERE api_key_id = ? ORDER BY created_at ASC, domain ASC', [apiKeyId]);
      return { allowedDomains: rows.map((row) => row.domain) };
    },
  },
  {
    name: 'documents/get, first page of 1000 (100k docs)',
    path: '/v2/organizations/documents/get',
    message: 'Document(s) retrieved successfully.',
    body: (seed) => ({ data: { organizationId: seed.bigOrganizationId, pageSize: 1000 } }),
    headers: keyHeaders,
    baseline: bareDocumentsPage,
  },
  {
    name: 'documents/get, last page of 1000 (100k docs)',
    path: '/v2/organizations/documents/get',
    message: 'Document(s) retrieved successfully.',
    body: (seed) => ({ data: { organizationId: seed.bigOrganizationId, pageSize: 1000, pageToken: seed.lastDocumentsPageToken } }),
    headers: keyHeaders,
    baseline: bareDocumentsPage,
  },
  {
    name: 'permissions/get, 1 user × 1 document',
    path: '/v2/auth/permissions/get',
    message: 'User permissions retrieved successfully.',
    body: (seed) => ({
      data: { organizationId: seed.bigOrganizationId, userIds: [seed.permissionUserIds[60]], documentIds: [seed.permissionDocumentIds[10]] },
    }),
    headers: keyHeaders,
  },
  {
    name: 'permissions/get, 100 users × 100 resources',
    path: '/v2/auth/permissions/get',
    against: 'permissions/get, 1 user × 1 document',
    message: 'User permissions retrieved successfully.',
    body: (seed) => ({
      data: {
        organizationId: seed.bigOrganizationId,
        userIds: seed.permissionUserIds,
        folderIds: seed.permissionFolderIds,
        documentIds: seed.permissionDocumentIds,
      },
    }),
    headers: keyHeaders,
  },
  {
    // No two users resolve alike here, so nothing is shared between users: the worst case.
    name: 'permissions/get, 100 users with grants of their own × 100 resources',
    path: '/v2/auth/permissions/get',
    against: 'permissions/get, 1 user × 1 document',
    message: 'User permissions retrieved successfully.',
    body: (seed) => ({
      data: { organizationId: seed.bigOrganizationId, userIds: seed.soloUserIds, folderIds: seed.permissionFolderIds, documentIds: seed.permissionDocumentIds },
    }),
    headers: keyHeaders,
  },
  {
    name: 'folders/get, maxDepth 2 from the top (10k folders)',
    path: '/v2/organizations/folders/get',
    message: 'Folders retrieved successfully.',
    body: (seed) => ({ data: { organizationId: seed.bigOrganizationId, maxDepth: 2 } }),
    headers: keyHeaders,
  },
];
