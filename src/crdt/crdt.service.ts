import { Injectable } from '@nestjs/common';
import { JsonText } from '../common/envelope.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { PageTokens, PAGE_SIZE } from '../common/paging.js';
import { AppConfig } from '../config/app-config.js';
import { Transactions } from '../database/transactions.js';
import { DocumentsService } from '../directory/documents.service.js';
import { CrdtStore, type EditorPlace, type StoredEditor } from './crdt-store.js';
import type { DeleteCrdtRequest, GetCrdtRequest, GetCrdtStateRequest, UpdateCrdtStateRequest, WriteCrdtRequest } from './dto/crdt.dto.js';
import { onFirstUse } from '../common/optional-modules.js';
import { BadUpdateError, dataProblem, newClientId, type CrdtData } from './crdt-data.js';
import type { EditorContent } from './yjs-content.js';
import { CrdtErrors } from './crdt.errors.js';

/** Yjs, imported with the first editor written or read as Yjs (an instance without editors never needs it). */
const yjsContent = onFirstUse(() => import('./yjs-content.js'));

const DEFAULT_CONTENT_KEY = 'content';

/**
 * Shared-editing content (contract part 7). Every write loads the editor's Yjs document,
 * changes it with CRDT operations and stores the new state with its JSON view, all under the
 * editor's row lock, so concurrent writers take turns and none is lost.
 */
/** Binds page tokens of `crdt/get` to that operation. */
const OPERATION_GET = 'crdt/get';

/** Who writes: recorded as the editor's `lastUpdatedBy` and `sessionId` (null when not sent). */
export interface Writer {
  userId: string | null;
  sessionId: string | null;
  /** A live room's store: every user whose typing it stores, `userId` last (each gets its event); else just `userId`. */
  users?: readonly string[];
}

function writerOf(request: { userId?: string; sessionId?: string }): Writer {
  return { userId: request.userId ?? null, sessionId: request.sessionId ?? null };
}

@Injectable()
export class CrdtService {
  constructor(
    private readonly transactions: Transactions,
    private readonly store: CrdtStore,
    private readonly documents: DocumentsService,
    private readonly config: AppConfig,
    private readonly pageTokens: PageTokens,
  ) {}

  /** Creates the editor; the organization and document are created when missing. */
  async add(principal: ApiKeyPrincipal, request: WriteCrdtRequest): Promise<void> {
    const { apiKeyId } = principal;
    const data = this.checkedData(request);
    const { EditorContent } = await yjsContent();
    const content = EditorContent.create(request.type, request.contentKey ?? DEFAULT_CONTENT_KEY, newClientId(), data);
    const editor = this.snapshot(request, content, writerOf(request));
    await this.transactions.run(async (manager) => {
      await this.documents.ensureDocument(manager, apiKeyId, request.organizationId, request.documentId);
      if (!(await this.store.create(manager, apiKeyId, editor))) throw CrdtErrors.exists();
    });
  }

  /** Changes the stored content to `data` (a diff, so other writers' edits survive). */
  async update(principal: ApiKeyPrincipal, request: WriteCrdtRequest): Promise<void> {
    const data = this.checkedData(request);
    await this.change(principal.apiKeyId, request, writerOf(request), (stored, content) => {
      if (request.type !== stored.type) throw CrdtErrors.otherShape('type', stored.type);
      if ((request.contentKey ?? DEFAULT_CONTENT_KEY) !== stored.contentKey) throw CrdtErrors.otherShape('contentKey', stored.contentKey);
      content.replaceWith(data);
    });
  }

  /** Applies a Yjs client's update. */
  async updateState(principal: ApiKeyPrincipal, request: UpdateCrdtStateRequest): Promise<void> {
    await this.applyUpdate(principal.apiKeyId, request, Buffer.from(request.update, 'base64'), writerOf(request));
  }

  /** Applies a Yjs update to the stored editor (a REST client's, or a live room's whole state), merged with what is stored. */
  async applyUpdate(apiKeyId: string, place: EditorPlace, update: Uint8Array, writer: Writer): Promise<void> {
    await this.change(apiKeyId, place, writer, (_stored, content) => {
      try {
        content.applyUpdate(update);
      } catch (error) {
        if (error instanceof BadUpdateError) throw CrdtErrors.badUpdate(error.message);
        throw error;
      }
    });
  }

  /**
   * A page of the document's editors as CRDT records, spliced from their stored JSON views; a
   * `pageToken` when more follow (a page is cut short past `PAGE_BYTES` of views).
   */
  async get(principal: ApiKeyPrincipal, request: GetCrdtRequest): Promise<{ data: JsonText; pageToken?: string }> {
    const { apiKeyId } = principal;
    const filters = { organizationId: request.organizationId, documentId: request.documentId, editorId: request.editorId ?? null };
    const after = request.pageToken ? this.pageTokens.decode<[number, string]>(apiKeyId, OPERATION_GET, filters, request.pageToken) : undefined;
    const pageSize = request.pageSize ?? PAGE_SIZE.default;
    const { records, cut } = await this.store.records(apiKeyId, request, after, pageSize + 1);
    const { items, next } = this.pageTokens.page(
      records,
      pageSize,
      apiKeyId,
      OPERATION_GET,
      filters,
      (last): [number, string] => [last.createdAt, last.editorId],
      cut,
    );
    return { data: new JsonText().text(`[${items.map((record) => record.json).join(',')}]`), ...(next ? { pageToken: next } : {}) };
  }

  /** The editor's state as a Yjs update (only what `stateVector` lacks, when given) and its state vector. */
  async getState(principal: ApiKeyPrincipal, request: GetCrdtStateRequest): Promise<{ update: string; stateVector: string }> {
    const stored = await this.store.find(principal.apiKeyId, request);
    if (!stored) throw CrdtErrors.missing();
    const { missingFrom, stateVectorOf } = await yjsContent();
    let update = stored.state;
    if (request.stateVector !== undefined) {
      try {
        update = missingFrom(stored.state, Buffer.from(request.stateVector, 'base64'));
      } catch {
        throw CrdtErrors.badStateVector();
      }
    }
    return { update: Buffer.from(update).toString('base64'), stateVector: Buffer.from(stateVectorOf(stored.state)).toString('base64') };
  }

  async delete(principal: ApiKeyPrincipal, request: DeleteCrdtRequest): Promise<void> {
    await this.transactions.run((manager) => this.store.delete(manager, principal.apiKeyId, request.organizationId, request.documentId, request.editorIds));
  }

  /** Loads the locked editor, lets `edit` change its document, and stores the result. */
  private async change(apiKeyId: string, place: EditorPlace, writer: Writer, edit: (stored: StoredEditor, content: EditorContent) => void): Promise<void> {
    const { EditorContent } = await yjsContent();
    await this.transactions.run(async (manager) => {
      const stored = await this.store.lock(manager, apiKeyId, place);
      if (!stored) throw CrdtErrors.missing();
      const content = EditorContent.load(stored.type, stored.contentKey, stored.clientId, stored.state);
      edit(stored, content);
      await this.store.save(manager, apiKeyId, this.snapshot(stored, content, writer), writer.users ?? [writer.userId]);
    });
  }

  /**
   * The row to store for `content`, refused when its view is over the size limit. Every write
   * (add, update, Yjs update) is measured here once, on the JSON it would store.
   */
  private snapshot(place: EditorPlace, content: EditorContent, writer: Writer): StoredEditor {
    const dataJson = JSON.stringify(content.view());
    if (Buffer.byteLength(dataJson) > this.config.crdtMaxBytes) throw CrdtErrors.tooLarge(this.config.crdtMaxBytes);
    return {
      organizationId: place.organizationId,
      documentId: place.documentId,
      editorId: place.editorId,
      type: content.type,
      contentKey: content.contentKey,
      clientId: content.doc.clientID,
      state: content.state(),
      dataJson,
      lastUpdate: Date.now(),
      lastUpdatedBy: writer.userId,
      sessionId: writer.sessionId,
    };
  }

  /** The request's data, refused with the contract's message when it does not match `type` (size: see `snapshot`). */
  private checkedData(request: WriteCrdtRequest): CrdtData {
    const problem = dataProblem(request.type, request.data);
    if (problem) throw CrdtErrors.dataMismatch(problem);
    return request.data as CrdtData;
  }
}
