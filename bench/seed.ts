import type { Seed } from './scenarios.js';

type Post = (path: string, data: unknown, headers?: Record<string, string>) => Promise<any>;

const BATCH = 500;
const FOLDERS = 10_000;
const DOCUMENTS = 100_000;

function progress(label: string, done: number, total: number): void {
  process.stdout.write(
    `\r  ${label}: ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} (${Math.round((done / total) * 100)}%)${done === total ? '\n' : ''}`,
  );
}

/**
 * Seeds through the public API, as a user would: a workspace and key with domains, 50 other
 * tenants, and one organization with 10,000 folders four levels deep holding 100,000 documents.
 */
export async function seed(post: Post): Promise<Seed> {
  const workspace = (await post('/v2/workspace/create', { ownerEmail: 'bench@example.com' })).result.data;
  const apiKey = Object.keys(workspace.apiKeyList)[0]!;
  const workspaceHeaders = { 'x-svc-workspace-id': workspace.id, 'x-svc-workspace-auth-token': workspace.authToken };
  const authToken = (await post('/v2/workspace/authtokens/get', { apiKey }, workspaceHeaders)).result.data.authTokens[0].token;
  const headers = { 'x-svc-api-key': apiKey, 'x-svc-auth-token': authToken };
  await post('/v2/workspace/domains/add', { domains: Array.from({ length: 20 }, (_, i) => `app${i}.example.com`) }, headers);
  for (let i = 0; i < 50; i++) await post('/v2/workspace/create', { ownerEmail: `tenant${i}@example.com` });

  const organizationId = 'big-org';
  await post('/v2/organizations/add', { organizations: [{ organizationId, organizationName: 'Big' }] }, headers);
  // 10 top-level folders, 100 below them, 1,000 below those, and the rest one level deeper.
  const folders: { folderId: string; parentFolderId?: string }[] = [];
  for (let a = 0; a < 10; a++) folders.push({ folderId: `f${a}` });
  for (let a = 0; a < 10; a++) for (let b = 0; b < 10; b++) folders.push({ folderId: `f${a}-${b}`, parentFolderId: `f${a}` });
  for (let a = 0; a < 10; a++)
    for (let b = 0; b < 10; b++) for (let c = 0; c < 10; c++) folders.push({ folderId: `f${a}-${b}-${c}`, parentFolderId: `f${a}-${b}` });
  for (let i = 0; folders.length < FOLDERS; i++)
    folders.push({ folderId: `leaf${i}`, parentFolderId: `f${i % 10}-${Math.floor(i / 10) % 10}-${Math.floor(i / 100) % 10}` });
  for (let i = 0; i < folders.length; i += BATCH) {
    await post('/v2/organizations/folders/add', { organizationId, folders: folders.slice(i, i + BATCH) }, headers);
    progress('folders', Math.min(i + BATCH, FOLDERS), FOLDERS);
  }
  for (let i = 0; i < DOCUMENTS; i += BATCH) {
    const documents = Array.from({ length: BATCH }, (_, j) => ({ documentId: `doc-${String(i + j).padStart(6, '0')}`, documentName: `Document ${i + j}` }));
    await post('/v2/organizations/documents/add', { organizationId, folderId: `leaf${i / BATCH}`, documents }, headers);
    progress('documents', i + BATCH, DOCUMENTS);
  }
  let pageToken: string | undefined;
  let lastDocumentsPageToken = '';
  const pages = DOCUMENTS / 1000;
  for (let page = 1; page <= pages; page++) {
    const result = (await post('/v2/organizations/documents/get', { organizationId, pageSize: 1000, ...(pageToken ? { pageToken } : {}) }, headers)).result;
    if (page === pages - 1) lastDocumentsPageToken = result.pageToken;
    pageToken = result.pageToken;
    progress('paging to the last page', page, pages);
  }
  // 100 users: half organization users, half added to one deep folder.
  const users = Array.from({ length: 100 }, (_, i) => ({ userId: `user${i}`, name: `User ${i}` }));
  await post('/v2/users/add', { organizationId, users: users.slice(0, 50) }, headers);
  await post('/v2/users/add', { organizationId, folderId: 'f3-3', users: users.slice(50) }, headers);
  const permissionUserIds = users.map((u) => u.userId);
  const permissionFolderIds = Array.from({ length: 50 }, (_, i) => `leaf${i * 7}`);
  const permissionDocumentIds = Array.from({ length: 50 }, (_, i) => `doc-${String(i * 1999).padStart(6, '0')}`);
  // 100 more users, each granted two of those documents: a pair no other user holds.
  const soloUserIds = Array.from({ length: 100 }, (_, i) => `solo${i}`);
  for (const [i, userId] of soloUserIds.entries()) {
    const resources = [i % 50, (i + 1 + Math.floor(i / 50)) % 50].map((d) => ({
      type: 'document',
      id: permissionDocumentIds[d],
      organizationId,
      accessRole: 'viewer',
    }));
    await post('/v2/auth/permissions/add', { user: { userId }, permissions: { resources } }, headers);
  }
  return {
    apiKey,
    authToken,
    workspaceId: workspace.id,
    workspaceToken: workspace.authToken,
    bigOrganizationId: organizationId,
    lastDocumentsPageToken,
    permissionUserIds,
    permissionFolderIds,
    permissionDocumentIds,
    soloUserIds,
    activityOrganizationId: ACTIVITY_ORGANIZATION,
    activityDocumentId: activityDocumentId(5),
    crdtDocumentId: CRDT_DOCUMENT,
    memoryOrganizationId: MEMORY_ORGANIZATION,
    memoryDocumentId: judgmentDocumentId(5),
    crdtEditorId: 'megabyte',
    commentsDocumentId: COMMENTS_DOCUMENT,
  };
}

const ACTIVITY_ORGANIZATION = 'activity-org';
/** Activities per document, in the small phase and in the large. */
export const ACTIVITIES_PER_DOCUMENT = 1_000;
const activityDocumentId = (n: number) => `activity-doc-${String(n).padStart(4, '0')}`;

/**
 * Adds 1,000 activities to each of documents `from` to `to` (exclusive) through activities add
 * in batches of 500, as a product back end would; returns the time taken. Timestamps are
 * backfilled one second apart, document by document.
 */
export async function seedActivities(post: Post, seed: Seed, from: number, to: number): Promise<{ seconds: number; activities: number }> {
  const headers = { 'x-svc-api-key': seed.apiKey, 'x-svc-auth-token': seed.authToken };
  const total = (to - from) * ACTIVITIES_PER_DOCUMENT;
  const started = Date.now();
  let done = 0;
  // Two requests in flight, as a back end forwarding events would keep: while the service
  // stores one batch, the next is on its way (the embedded database still writes one at a time).
  const batches: { document: number; offset: number }[] = [];
  for (let document = from; document < to; document++)
    for (let offset = 0; offset < ACTIVITIES_PER_DOCUMENT; offset += BATCH) batches.push({ document, offset });
  const worker = async () => {
    for (let next = batches.shift(); next; next = batches.shift()) {
      const { document, offset } = next;
      const activities = Array.from({ length: BATCH }, (_, i) => {
        const n = document * ACTIVITIES_PER_DOCUMENT + offset + i;
        return {
          featureType: 'comment',
          actionType: n % 10 === 0 ? 'comment_annotation.add' : 'comment.add',
          actionUser: { userId: `user${n % 100}`, name: `User ${n % 100}`, email: `user${n % 100}@example.com` },
          targetEntityId: `annotation-${Math.floor(n / 10)}`,
          entityData: { text: `Comment number ${n} on this document` },
          displayMessageTemplate: '{{actionUser.name}} commented',
          timestamp: 1_700_000_000_000 + n * 1000,
        };
      });
      await post('/v2/activities/add', { organizationId: ACTIVITY_ORGANIZATION, documentId: activityDocumentId(document), activities }, headers);
      done += BATCH;
      if (done % 10_000 === 0 || done === total) progress('activities', done, total);
    }
  };
  await Promise.all([worker(), worker()]);
  return { seconds: (Date.now() - started) / 1000, activities: total };
}

/** Walks to page `page` of the organization's activities (pages of 100, newest first). */
export async function activitiesPageToken(post: Post, seed: Seed, page: number): Promise<string> {
  const headers = { 'x-svc-api-key': seed.apiKey, 'x-svc-auth-token': seed.authToken };
  let pageToken: string | undefined;
  for (let n = 1; n < page; n++) {
    pageToken = (await post('/v2/activities/get', { organizationId: ACTIVITY_ORGANIZATION, pageSize: 100, ...(pageToken ? { pageToken } : {}) }, headers))
      .result.pageToken;
    if (n % 100 === 0 || n === page - 1) progress(`paging to activities page ${page}`, n, page - 1);
  }
  return pageToken!;
}

const CRDT_DOCUMENT = 'crdt-doc';

/**
 * Shared-editing content: a text editor of 1 MiB as JSON (for get), and the stored size after
 * 1,000 single-character edits to a 100 KB text against the same final text written at once.
 */
export async function seedCrdt(post: Post, seed: Seed): Promise<{ editedBytes: number; freshBytes: number }> {
  const headers = { 'x-svc-api-key': seed.apiKey, 'x-svc-auth-token': seed.authToken };
  const place = (editorId: string) => ({ organizationId: seed.activityOrganizationId, documentId: CRDT_DOCUMENT, editorId });
  const line = 'The quick brown fox jumps over the lazy dog; shared editing keeps every keystroke. ';
  const megabyte = line.repeat(Math.ceil(1_048_000 / line.length)).slice(0, 1_048_000);
  await post('/v2/crdt/add', { ...place(seed.crdtEditorId), type: 'text', data: megabyte }, headers);

  let text = line.repeat(Math.ceil(100_000 / line.length)).slice(0, 100_000);
  await post('/v2/crdt/add', { ...place('edited'), type: 'text', data: text }, headers);
  for (let i = 0; i < 1000; i++) {
    // Two inserts for each delete, spread over the text.
    const at = (i * 7919) % text.length;
    text = i % 3 === 2 ? text.slice(0, at) + text.slice(at + 1) : `${text.slice(0, at)}${String.fromCharCode(97 + (i % 26))}${text.slice(at)}`;
    await post('/v2/crdt/update', { ...place('edited'), type: 'text', data: text }, headers);
    if ((i + 1) % 100 === 0) progress('single-character CRDT updates', i + 1, 1000);
  }
  await post('/v2/crdt/add', { ...place('fresh'), type: 'text', data: text }, headers);
  const stateBytes = async (editorId: string) => Buffer.from((await post('/v2/crdt/state/get', place(editorId), headers)).result.data.update, 'base64').length;
  return { editedBytes: await stateBytes('edited'), freshBytes: await stateBytes('fresh') };
}

const MEMORY_ORGANIZATION = 'memory-org';
/** Judgments per document, in the small phase and in the large. */
const JUDGMENTS_PER_DOCUMENT = 100;
const judgmentDocumentId = (n: number) => `review-doc-${String(n).padStart(4, '0')}`;
const ISSUES = [
  'missing alt text on the image',
  'colour contrast too low',
  'broken link in the footer',
  'typo in the heading',
  'button label unclear',
  'tooltip text truncated',
  'table header not announced',
  'video has no captions',
  'form field lacks a label',
  'focus order is confusing',
];
const COMPONENTS = ['hero banner', 'pricing card', 'signup form', 'navigation menu', 'product gallery', 'settings page', 'checkout step', 'dashboard chart'];

/**
 * Decision activities for documents `from` to `to` (exclusive), 100 each, which memory turns into
 * judgments: reviewers approving or rejecting with a reasoning built from ten kinds of issue.
 * Most issues lean one way, so suggestions have a side to find.
 */
export async function seedJudgments(post: Post, seed: Seed, from: number, to: number): Promise<{ seconds: number }> {
  const headers = { 'x-svc-api-key': seed.apiKey, 'x-svc-auth-token': seed.authToken };
  const started = Date.now();
  const total = (to - from) * JUDGMENTS_PER_DOCUMENT;
  let done = 0;
  const documents = Array.from({ length: to - from }, (_, i) => from + i);
  const worker = async () => {
    for (let document = documents.shift(); document !== undefined; document = documents.shift()) {
      const activities = Array.from({ length: JUDGMENTS_PER_DOCUMENT }, (_, i) => {
        const n = document * JUDGMENTS_PER_DOCUMENT + i;
        const issue = ISSUES[n % ISSUES.length]!;
        const reject = (n * 7) % 10 < (n % ISSUES.length < 5 ? 8 : 3);
        return {
          featureType: 'comment',
          actionType: reject ? 'comment_annotation.suggestion_reject' : 'comment_annotation.approve',
          actionUser: { userId: `reviewer${n % 40}`, name: `Reviewer ${n % 40}` },
          targetEntityId: `annotation-${n}`,
          entityData: { reasoning: `${reject ? 'Rejected' : 'Approved'}: ${issue} in the ${COMPONENTS[n % COMPONENTS.length]}` },
          timestamp: Date.now() - (n % 400) * 86_400_000,
        };
      });
      await post('/v2/activities/add', { organizationId: MEMORY_ORGANIZATION, documentId: judgmentDocumentId(document), activities }, headers);
      done += JUDGMENTS_PER_DOCUMENT;
      if (done % 5_000 === 0 || done === total) progress('judgments', done, total);
    }
  };
  await Promise.all([worker(), worker()]);
  return { seconds: (Date.now() - started) / 1000 };
}

/** Organization and document of the comments scenarios: 10,000 threads of two comments each. */
export const COMMENTS_DOCUMENT = 'comments-doc';
const COMMENT_THREADS = 10_000;

/** Threads for comments get (each with a reply mentioning a user), and the token of page 51 of 100. */
export async function seedComments(post: Post, seed: Seed): Promise<{ seconds: number; deepPageToken: string }> {
  const headers = { 'x-svc-api-key': seed.apiKey, 'x-svc-auth-token': seed.authToken };
  const place = { organizationId: ACTIVITY_ORGANIZATION, documentId: COMMENTS_DOCUMENT };
  const started = Date.now();
  for (let from = 0; from < COMMENT_THREADS; from += 500) {
    const commentAnnotations = Array.from({ length: 500 }, (_, i) => ({
      location: { id: `loc-${(from + i) % 20}` },
      commentData: [
        {
          commentText: `Thread ${from + i}: the hero image is missing alt text`,
          commentHtml: `<p>Thread ${from + i}: the hero image is missing alt text</p>`,
          from: { userId: `author-${i % 50}`, name: 'Author' },
        },
        {
          commentText: 'Agreed, {{reviewer-1}} can you fix it?',
          from: { userId: 'replier', name: 'Replier' },
          taggedUserContacts: [{ userId: 'reviewer-1', contact: { userId: 'reviewer-1', name: 'Reviewer' } }],
        },
      ],
    }));
    await post('/v2/commentannotations/add', { ...place, createOrganization: true, createDocument: true, commentAnnotations }, headers);
    progress('adding comment threads', from + 500, COMMENT_THREADS);
  }
  const seconds = (Date.now() - started) / 1000;
  // The organization's team, who may see its documents: the add scenario's author, the three
  // users it mentions and six others, so each add fans out to nine inboxes (default preference ALL).
  const team = ['author-1', 'reviewer-1', 'reviewer-2', 'reviewer-3', ...Array.from({ length: 6 }, (_, i) => `teammate-${i + 1}`)];
  await post(
    '/v2/users/add',
    { organizationId: ACTIVITY_ORGANIZATION, users: team.map((userId) => ({ userId, name: userId, email: `${userId}@example.com` })) },
    headers,
  );
  await seedInboxes(post, headers);
  let pageToken: string | undefined;
  for (let n = 1; n <= 50; n++)
    pageToken = (await post('/v2/commentannotations/get', { ...place, pageSize: 100, ...(pageToken ? { pageToken } : {}) }, headers)).result.nextPageToken;
  return { seconds, deepPageToken: pageToken! };
}

/** Notifying threads the seed adds, in batches of 100, so the team's inboxes hold entries. */
const INBOX_SEED_THREADS = 2_000;

/**
 * Fills the team's inboxes as a deployment's are (each thread notifies the nine of them) and
 * waits until the last thread's entry is there: the statistics taken next (`analyse`) then see
 * inbox tables with rows, as autovacuum would. Analysed empty, PostgreSQL planned the inbox's
 * foreign-key check as a sequential scan and kept that plan through the run while the table
 * grew (0.8 ms a row by the end of a run, more than the rest of the worker's statements).
 */
async function seedInboxes(post: Post, headers: Record<string, string>): Promise<void> {
  const place = { organizationId: ACTIVITY_ORGANIZATION, documentId: 'inbox-seed-doc', createDocument: true };
  let last = '';
  for (let from = 0; from < INBOX_SEED_THREADS; from += 100) {
    const commentAnnotations = Array.from({ length: 100 }, (_, i) => ({
      commentData: [
        {
          commentText: `Seeded thread ${from + i} for {{reviewer-1}}`,
          from: { userId: 'author-1', name: 'Author' },
          taggedUserContacts: [{ userId: 'reviewer-1', contact: { userId: 'reviewer-1', name: 'Reviewer' } }],
          triggerNotification: true,
        },
      ],
    }));
    const added = (await post('/v2/commentannotations/add', { ...place, commentAnnotations }, headers)).result.data as Record<string, unknown>;
    last = Object.keys(added).at(-1)!;
    progress('filling inboxes', from + 100, INBOX_SEED_THREADS);
  }
  for (const started = Date.now(); ; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const inbox = { organizationId: ACTIVITY_ORGANIZATION, documentId: 'inbox-seed-doc', userId: 'teammate-1', pageSize: 5 };
    const entries = (await post('/v2/notifications/get', inbox, headers)).result.data as { notificationSourceData?: { annotationId?: string } }[];
    if (entries.some((entry) => entry.notificationSourceData?.annotationId === last)) return;
    if (Date.now() - started > 120_000) throw new Error('seeding inboxes: the last thread has no inbox entry after 2 minutes');
  }
}
