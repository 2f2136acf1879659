import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Activity } from '../activity/activity-store.js';
import { AccessService } from '../access/access.service.js';
import { newSortableId } from '../common/ids.js';
import { everyPage, PageTokens, PAGE_SIZE } from '../common/paging.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import type { WireUser } from '../common/validation/checks.js';
import { Transactions } from '../database/transactions.js';
import { DocumentsService } from '../directory/documents.service.js';
import { DocumentStore } from '../directory/document-store.js';
import { InboxStore } from '../inbox/inbox-store.js';
import { CommentEvents, commentActivity, threadActivity, triggersOf, type Triggers } from './comment-events.js';
import { CommentsService } from './comments.service.js';
import { CommentStore, type ThreadFilter } from './comment-store.js';
import {
  AGENT_FILTERS,
  type AddAnnotationsRequest,
  type AnnotationInput,
  type CountAnnotationsRequest,
  type DeleteAnnotationsRequest,
  type GetAnnotationsRequest,
  type GetAnnotationsV1Request,
  type UpdateAnnotationsRequest,
} from './dto/comments.dto.js';
import type { AnnotationAdded } from './dto/comments.response.js';
import { newComments, withAgentType } from './new-comments.js';
import { AGENT_SOURCES, OPEN_STATUS, threadJson, type Annotation, type Thread } from './threads.js';
import { CommentErrors } from './comments.errors.js';

export const AnnotationMessages = {
  added: 'Added Successfully',
  denied: 'User does not have access to the document.',
  updated: 'Annotations updated successfully',
  deleted: 'Deleted Successfully',
  notFound: 'Annotation not found.',
} as const;

const OPERATION_GET = 'commentannotations/get';
type ItemOutcome = { success: boolean; id: string; message: string };

/** Upstream's comment annotations operations (`v2/commentannotations/...`). */
@Injectable()
export class CommentAnnotationsService {
  constructor(
    private readonly store: CommentStore,
    private readonly events: CommentEvents,
    private readonly transactions: Transactions,
    private readonly pageTokens: PageTokens,
    private readonly documents: DocumentsService,
    private readonly documentStore: DocumentStore,
    private readonly access: AccessService,
    private readonly inbox: InboxStore,
    private readonly comments: CommentsService,
  ) {}

  /**
   * Adds threads, each with its comments. An existing `annotationId` is overwritten (its thread
   * starts again), so a retry does not duplicate. With `verifyUserPermissions`, a thread whose
   * author may not see the document is not added; the others are, and the answer is then
   * PERMISSION_DENIED with every outcome in `details` (upstream's partial write).
   */
  async add(principal: ApiKeyPrincipal, request: AddAnnotationsRequest): Promise<Record<string, AnnotationAdded>> {
    const { apiKeyId } = principal;
    const { organizationId, documentId } = request;
    const now = Date.now();
    const outcomes: Record<string, AnnotationAdded> = {};
    let denied = false;
    const lastNumber = await this.numbersAhead(apiKeyId, request);
    // With its numbers taken ahead, the unit only reads and inserts (the threads' rows, and the
    // events' records when asked for): begun lazily, it is one statement, all or none, with no
    // transaction around it (PostgreSQL; see `LazyUnit`).
    await this.transactions.run(
      async (manager) => {
        if (lastNumber === undefined) {
          await this.documents.requirePlace(manager, apiKeyId, request);
          // Concurrent units (PostgreSQL) queue on the counter before reading threads; on the
          // embedded database units run one at a time, and `numberThreads` takes the numbers.
          if (this.transactions.concurrent) await this.store.lockCounter(manager, apiKeyId, organizationId, documentId);
        }
        const audience =
          request.verifyUserPermissions === true
            ? new Set((await this.access.documentAudience(apiKeyId, organizationId, documentId)).map((entry) => entry.userId))
            : undefined;
        const given = request.commentAnnotations.flatMap((a) => (a.annotationId !== undefined ? [a.annotationId] : []));
        const existing = new Map(
          given.length ? (await this.store.lockThreads(manager, apiKeyId, organizationId, { annotationIds: given })).map((t) => [t.annotationId, t]) : [],
        );
        const accepted: { input: AnnotationInput; thread: Thread }[] = [];
        request.commentAnnotations.forEach((input, index) => {
          if (audience && !audience.has(input.commentData[0]!.from.userId)) {
            denied = true;
            outcomes[input.annotationId ?? `__velt_denied:${index}`] = { success: false, message: AnnotationMessages.denied };
            return;
          }
          accepted.push({ input, thread: newThread(organizationId, documentId, input, now) });
        });
        if (lastNumber === undefined)
          await this.numberThreads(
            manager,
            apiKeyId,
            accepted.map((a) => a.thread),
            existing,
          );
        else accepted.forEach(({ thread }, i) => (thread.annotationNumber = lastNumber - accepted.length + 1 + i));
        // An overwritten thread starts again: its comments (and their mentions) go first.
        for (const { thread } of accepted)
          if (existing.has(thread.annotationId)) await this.store.clearComments(manager, apiKeyId, organizationId, thread.annotationId);
        await this.store.putThreads(
          manager,
          apiKeyId,
          accepted.map((a) => a.thread),
        );
        const events: { activity: () => Activity; triggers: Triggers }[] = [];
        for (const { input, thread } of accepted) {
          input.commentData.forEach((sent, c) => {
            const comment = thread.comments[c]!;
            const activity = () =>
              c === 0
                ? threadActivity(apiKeyId, 'comment_annotation.add', comment.from, thread, now)
                : commentActivity(
                    apiKeyId,
                    'comment.add',
                    comment.from,
                    thread,
                    thread.comments.slice(0, c).map((earlier) => earlier.from.userId),
                    now,
                    comment,
                  );
            events.push({ activity, triggers: triggersOf(sent) });
          });
          const findingId = (thread.agent?.reason as { findingId?: unknown } | undefined)?.findingId;
          outcomes[thread.annotationId] = {
            success: true,
            annotationId: thread.annotationId,
            commentIds: thread.comments.map((c) => c.commentId),
            message: AnnotationMessages.added,
            ...(typeof findingId === 'string' ? { findingId } : {}),
          };
        }
        await this.events.publishEach(manager, apiKeyId, events);
      },
      undefined,
      { begin: 'lazily' },
    );
    if (denied) throw CommentErrors.usersDenied(outcomes);
    return outcomes;
  }

  /**
   * The last of the numbers of an add whose threads are all new to an existing document (no id
   * sent, no permission check that may leave some out), taken before its unit of work in one
   * statement that also checks the document (`atomic: false`). The unit then holds no lock
   * another add to the document waits for: its numbers are taken, and new ids meet no other add's
   * threads. Undefined for any other add, which numbers its threads inside its unit
   * (`numberThreads`, after `lockCounter`). Numbers taken by an add that then fails stay unused,
   * as a deleted thread's do. Only where units run concurrently (PostgreSQL): on the embedded
   * database they run one at a time anyway, and a unit of its own for the numbers cut adds' rate
   * there by 10-25% (alternated bench runs).
   */
  private async numbersAhead(apiKeyId: string, request: AddAnnotationsRequest): Promise<number | undefined> {
    if (!this.transactions.concurrent) return undefined;
    if (request.verifyUserPermissions === true || request.commentAnnotations.some((a) => a.annotationId !== undefined)) return undefined;
    const { organizationId, documentId, commentAnnotations } = request;
    return this.transactions.run((manager) => this.store.takeNumbers(manager, apiKeyId, organizationId, documentId, commentAnnotations.length), undefined, {
      atomic: false,
    });
  }

  /**
   * Gives each thread its number in the document: an overwritten thread of the same document
   * keeps its own; the others (new, moved from another document, or added before threads were
   * numbered) take the document's next numbers in the order sent, one per distinct id.
   */
  private async numberThreads(manager: EntityManager, apiKeyId: string, threads: Thread[], existing: Map<string, Thread>): Promise<void> {
    if (!threads.length) return;
    const { organizationId, documentId } = threads[0]!;
    const numbers = new Map<string, number | undefined>();
    for (const { annotationId } of threads) {
      const before = existing.get(annotationId);
      if (!numbers.has(annotationId)) numbers.set(annotationId, before?.documentId === documentId ? before.annotationNumber : undefined);
    }
    const unnumbered = [...numbers].filter(([, number]) => number === undefined).map(([id]) => id);
    if (unnumbered.length) {
      // The unit checked (or made) the document first (`requirePlace`), so numbers are taken.
      const last = (await this.store.takeNumbers(manager, apiKeyId, organizationId, documentId, unnumbered.length))!;
      unnumbered.forEach((id, i) => numbers.set(id, last - unnumbered.length + 1 + i));
    }
    for (const thread of threads) thread.annotationNumber = numbers.get(thread.annotationId)!;
  }

  /** One keyset page of threads over (lastUpdated, annotationId), newest first by default, every filter an AND. */
  async get(principal: ApiKeyPrincipal, request: GetAnnotationsRequest): Promise<{ data: unknown; nextPageToken?: string }> {
    const { apiKeyId } = principal;
    const { organizationId } = request;
    const agentFilters = AGENT_FILTERS.filter((name) => request[name] !== undefined);
    if (agentFilters.length > 1) throw CommentErrors.oneAgentFilter(agentFilters);
    const documentIds = request.documentId !== undefined ? [request.documentId, ...(request.documentIds ?? [])] : request.documentIds;
    const inFolder = request.folderId !== undefined ? await this.documentStore.idsInFolder(apiKeyId, organizationId, request.folderId) : undefined;
    const filter: ThreadFilter = {
      documentIds: inFolder ? (documentIds ? documentIds.filter((id) => inFolder.includes(id)) : inFolder) : documentIds,
      annotationIds: request.annotationIds,
      locationIds: request.locationIds,
      userIds: request.userIds,
      mentionedUserIds: request.mentionedUserIds,
      statusIds: request.statusIds,
      resolvedBy: request.resolvedBy,
      agentId: request.agentId,
      executionId: request.executionId,
      agentSource: request.agentSource ?? (request.agentType === 'external' ? 'external' : request.agentType !== undefined ? 'velt' : undefined),
      agentThreads: request.agentSuggestions === true ? 'pending' : request.agentComments === true || request.agentType !== undefined ? 'agent' : undefined,
      agentFieldsAnyOf: request.agentFields !== undefined ? agentFieldTokens(request.agentFields) : undefined,
      updatedAfter: request.updatedAfter,
      updatedBefore: request.updatedBefore,
      createdAfter: request.createdAfter,
      createdBefore: request.createdBefore,
    };
    const order = request.order ?? 'desc';
    const pageSize = request.pageSize ?? PAGE_SIZE.default;
    const tokenFilters = { organizationId, ...filter, order };
    const after = request.pageToken ? this.pageTokens.decode<[number, string]>(apiKeyId, OPERATION_GET, tokenFilters, request.pageToken) : undefined;
    const { threads, cut, partial } = await this.store.page(apiKeyId, organizationId, filter, order, after, pageSize + 1);
    const page = this.pageTokens.page(
      threads,
      pageSize,
      apiKeyId,
      OPERATION_GET,
      tokenFilters,
      (last): [number, string] => [last.lastUpdated, last.annotationId],
      cut,
    );
    const answered = page.items.map((thread) => {
      const json = threadJson(apiKeyId, thread);
      const cursor = partial.get(thread.annotationId);
      // A thread with more comments than a page holds: comments/get continues them.
      return cursor ? { ...json, commentsPageToken: this.comments.pageToken({ apiKeyId, ...thread }, thread.documentId, cursor) } : json;
    });
    if (request.groupByDocumentId === true) {
      const grouped: Record<string, unknown[]> = {};
      page.items.forEach((thread, i) => (grouped[thread.documentId] ??= []).push(answered[i]));
      return { data: grouped, nextPageToken: page.next };
    }
    // Upstream answers null for each requested id that does not exist, once every page is read.
    const found = new Set(page.items.map((t) => t.annotationId));
    const missing = page.next === undefined && !after ? (request.annotationIds ?? []).filter((id) => !found.has(id)) : [];
    return { data: [...answered, ...missing.map(() => null)], nextPageToken: page.next };
  }

  /**
   * v1 get: every page of threads, each with all its comments. v1 has no paging, so a thread
   * that comes cut short (its `commentsPageToken`) is completed from comments get.
   */
  async getEveryPage(principal: ApiKeyPrincipal, request: GetAnnotationsV1Request): Promise<unknown[]> {
    const threads = await everyPage((pageToken) =>
      this.get(principal, { ...request, pageToken }).then((page) => ({ items: page.data as (Record<string, unknown> | null)[], next: page.nextPageToken })),
    );
    for (const [i, thread] of threads.entries()) {
      if (typeof thread?.commentsPageToken !== 'string') continue;
      const { commentsPageToken, comments, ...rest } = thread;
      const place = { organizationId: request.organizationId, documentId: request.documentId, annotationId: thread.annotationId as string };
      threads[i] = { ...rest, comments: [...(comments as unknown[]), ...(await this.comments.getEveryPage(principal, place, commentsPageToken))] };
    }
    return threads;
  }

  /** Changes the threads the filters select: `updatedData` fields, and users replaced throughout (`updateUsers`). */
  async update(principal: ApiKeyPrincipal, request: UpdateAnnotationsRequest): Promise<Record<string, ItemOutcome>> {
    const { apiKeyId } = principal;
    const { organizationId, documentId, updatedData, updateUsers } = request;
    if (updatedData === undefined && updateUsers === undefined) throw CommentErrors.nothingToUpdate();
    const now = Date.now();
    return this.transactions.run(async (manager) => {
      const threads = await this.store.lockThreads(manager, apiKeyId, organizationId, {
        documentIds: [documentId],
        annotationIds: request.annotationIds,
        locationIds: request.locationIds,
        userIds: request.userIds,
      });
      const activities: Activity[] = [];
      const changed = threads.map((before) => {
        let after: Thread = { ...before, lastUpdated: now };
        if (updatedData) after = applyUpdate(after, updatedData);
        if (updateUsers) after = replaceUsers(after, updateUsers);
        const actor = request.actionUser ?? (updatedData?.statusUpdatedByUserId ? { userId: updatedData.statusUpdatedByUserId } : before.from);
        for (const actionType of changeEvents(before, after)) activities.push(threadActivity(apiKeyId, actionType, actor, after, now));
        return after;
      });
      await this.store.putAnnotations(manager, apiKeyId, changed);
      if (updateUsers)
        for (const thread of changed) await this.store.putComments(manager, apiKeyId, organizationId, thread.annotationId, thread.comments, { fresh: false });
      await this.events.publish(manager, apiKeyId, activities, triggersOf(request));
      const outcomes: Record<string, ItemOutcome> = Object.fromEntries(
        changed.map((t) => [t.annotationId, { success: true, id: t.annotationId, message: AnnotationMessages.updated }]),
      );
      for (const id of request.annotationIds ?? []) outcomes[id] ??= { success: false, id, message: AnnotationMessages.notFound };
      return outcomes;
    });
  }

  /** Deletes the threads the filters select (all of the document's without any); each requested id that matched nothing fails. */
  async delete(principal: ApiKeyPrincipal, request: DeleteAnnotationsRequest): Promise<Record<string, ItemOutcome>> {
    const { apiKeyId } = principal;
    const now = Date.now();
    const agentFiltered = request.agentId !== undefined || request.agentSuggestions === true || request.agentUrls !== undefined;
    if (request.agentUrls !== undefined && request.agentUrls.every((url) => url.trim() === '' || url.trim().startsWith('#')))
      throw CommentErrors.agentUrlsNameNoPage();
    return this.transactions.run(async (manager) => {
      const threads = await this.store.lockThreads(manager, apiKeyId, request.organizationId, {
        documentIds: [request.documentId],
        annotationIds: request.annotationIds,
        locationIds: request.locationIds,
        userIds: request.userIds,
        agentId: request.agentId,
        agentThreads: request.agentSuggestions === true ? 'pending' : agentFiltered ? 'agent' : undefined,
        agentUrls: request.agentUrls,
      });
      await this.store.deleteThreads(manager, apiKeyId, threads);
      const activities = threads.map((thread) => threadActivity(apiKeyId, 'comment_annotation.delete', request.actionUser ?? thread.from, thread, now));
      await this.events.publish(manager, apiKeyId, activities, triggersOf(request));
      const outcomes: Record<string, ItemOutcome> = Object.fromEntries(
        threads.map((t) => [t.annotationId, { success: true, id: t.annotationId, message: AnnotationMessages.deleted }]),
      );
      for (const id of request.annotationIds ?? []) outcomes[id] ??= { success: false, id, message: AnnotationMessages.notFound };
      return outcomes;
    });
  }

  /** Per requested document: its threads (of `statusIds`), and those holding an unread inbox entry of the user's. */
  async count(principal: ApiKeyPrincipal, request: CountAnnotationsRequest): Promise<Record<string, { total: number; unread: number }>> {
    const unreadThreads = await this.inbox.threadsUnreadBy(principal.apiKeyId, request.organizationId, request.userId);
    const counts = await this.store.counts(principal.apiKeyId, request.organizationId, request.documentIds, request.statusIds, unreadThreads);
    return Object.fromEntries(request.documentIds.map((id) => [id, counts.get(id) ?? { total: 0, unread: 0 }]));
  }
}

/**
 * `agentFields` tokens by kind: `agent:<agentId>`, `execution:<executionId>`, `source:<velt|external>`
 * (upstream calls them raw tokens and does not spell them out; these are this service's, see docs/guides/comments-and-inbox.md).
 */
function agentFieldTokens(tokens: string[]): { agentIds: string[]; executionIds: string[]; agentSources: string[] } {
  const parsed = { agentIds: [] as string[], executionIds: [] as string[], agentSources: [] as string[] };
  const lists = { agent: parsed.agentIds, execution: parsed.executionIds, source: parsed.agentSources } as const;
  tokens.forEach((token, i) => {
    const colon = token.indexOf(':');
    const kind = token.slice(0, colon) as keyof typeof lists;
    const value = token.slice(colon + 1);
    if (colon < 1 || !Object.hasOwn(lists, kind) || !value || (kind === 'source' && !(AGENT_SOURCES as readonly string[]).includes(value))) {
      throw CommentErrors.agentFieldInvalid(i);
    }
    lists[kind].push(value);
  });
  if (!tokens.length) throw CommentErrors.agentFieldsEmpty();
  return parsed;
}

/** A new thread from what add sent: defaults filled, the root comment's agent lifted to the annotation. */
function newThread(organizationId: string, documentId: string, input: AnnotationInput, now: number): Thread {
  const comments = newComments(input.commentData, 0, now);
  const root = comments[0]!;
  const type = input.type ?? 'comment';
  const annotation: Annotation = {
    annotationId: input.annotationId ?? newSortableId('ann_'),
    organizationId,
    documentId,
    type,
    sourceType: root.agent ? 'agent' : 'rest-api',
    from: root.from,
    status: input.status ?? OPEN_STATUS,
    ...(input.priority ? { priority: input.priority } : {}),
    ...(input.assignedTo ? { assignedTo: input.assignedTo } : {}),
    ...(input.location ? { location: input.location } : {}),
    ...(input.targetElement ? { targetElement: input.targetElement } : {}),
    ...(input.context ? { context: input.context } : {}),
    visibilityConfig: input.visibility ?? { type: 'public' },
    // The server owns a suggestion's status: it starts pending whatever was sent.
    ...(type === 'suggestion' ? { suggestion: { ...input.suggestion, status: 'pending' as const } } : {}),
    ...(input.actions ? { actions: input.actions } : {}),
    ...(input.commentType ? { commentType: input.commentType } : {}),
    ...(root.agent ? { agent: withAgentType(root.agent) } : {}),
    createdAt: input.createdAt ?? now,
    lastUpdated: input.lastUpdated ?? now,
  };
  return { ...annotation, comments };
}

/** A thread with `updatedData` applied: a status that is not terminal clears who resolved it. */
function applyUpdate(thread: Thread, update: NonNullable<UpdateAnnotationsRequest['updatedData']>): Thread {
  const next: Thread = { ...thread };
  for (const [field, value] of Object.entries(update)) if (value !== undefined) (next as unknown as Record<string, unknown>)[field] = value;
  if (update.resolvedByUserId !== undefined) next.resolvedByUser = update.resolvedByUserId === null ? null : { userId: update.resolvedByUserId };
  if (next.status.type !== 'terminal') {
    next.resolvedByUserId = null;
    next.resolvedByUser = null;
  }
  return next;
}

/** A thread with each `oldUser` replaced by its `newUser` wherever a user is named (authors, assignee, tagged contacts). */
function replaceUsers(thread: Thread, replacements: { oldUser: WireUser; newUser: WireUser }[]): Thread {
  const byId = new Map(replacements.map((r) => [r.oldUser.userId, r.newUser]));
  const swap = <T extends WireUser | undefined>(user: T): T => ((user && byId.get(user.userId)) ?? user) as T;
  return {
    ...thread,
    from: swap(thread.from),
    ...(thread.assignedTo ? { assignedTo: swap(thread.assignedTo) } : {}),
    comments: thread.comments.map((c) => ({
      ...c,
      from: swap(c.from),
      ...(c.taggedUserContacts
        ? {
            taggedUserContacts: c.taggedUserContacts.map((t) =>
              byId.has(t.userId) ? { ...t, userId: byId.get(t.userId)!.userId, contact: byId.get(t.userId)! } : t,
            ),
          }
        : {}),
    })),
  };
}

/** The comment events an update makes (contract 6.2): status, priority, assignee, and a suggestion accepted or rejected. */
function changeEvents(before: Thread, after: Thread): string[] {
  const events: string[] = [];
  if (before.status.id !== after.status.id) events.push('comment_annotation.status_change');
  if (before.priority?.id !== after.priority?.id) events.push('comment_annotation.priority_change');
  if (before.assignedTo?.userId !== after.assignedTo?.userId) events.push('comment_annotation.assign');
  if (before.suggestion?.status !== after.suggestion?.status) {
    if (after.suggestion?.status === 'accepted') events.push('comment_annotation.suggestion_accept');
    if (after.suggestion?.status === 'rejected') events.push('comment_annotation.suggestion_reject');
  }
  return events;
}
