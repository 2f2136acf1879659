import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';
import { Transactions } from '../database/transactions.js';
import { DocumentsService } from '../directory/documents.service.js';
import type { DeletePresenceRequest, GetPresenceRequest, PresentUser, PutPresenceRequest } from './dto/presence.dto.js';
import { PresenceStore, SERVER_HOLDER, type DocumentPlace } from './presence-store.js';

/** A user connected live to a document on this instance. */
export interface LiveUser {
  apiKeyId: string;
  place: DocumentPlace;
  userId: string;
  name?: string;
  email?: string;
}

/** Hears that a document's presence changed (after the change commits), on the instance that changed it. */
export type PresenceListener = (apiKeyId: string, place: DocumentPlace) => void;

/**
 * How long this instance's live entries last without being extended, and how often it extends
 * them: a crashed instance's users leave others' presence within the TTL.
 */
const LIVE_ENTRY_TTL_MS = 30_000;
const LIVE_ENTRY_REFRESH_MS = 10_000;
/** Expired rows are deleted every this many refreshes (reads skip them meanwhile). */
const SWEEP_EVERY = 6;

/** A document's key in this instance's maps. */
const keyOf = (apiKeyId: string, place: DocumentPlace) => JSON.stringify([apiKeyId, place.organizationId, place.documentId]);

/**
 * Who is present in a document: the entries `presence/add|update|delete` put (each lasting
 * `LIVE_PRESENCE_TTL_SECONDS` from its last write), and the users connected live, on any
 * instance. Both are rows of `live_presence` (`PresenceStore`), so every instance answers the
 * same; this instance's live users are written there a moment after they come or go (one
 * writer at a time, so a quick leave and return cannot land out of order) and kept from
 * expiring while they stay. Listeners (the live rooms, which tell their clients and the other
 * instances) hear of each change once it is stored.
 */
@Injectable()
export class PresenceService {
  private readonly logger = new Logger('Presence');
  readonly listeners = new Set<PresenceListener>();
  /** This instance's holder name in `live_presence`. */
  private readonly holder = `live-${randomUUID()}`;
  /** Live users per document on this instance: how many connections each holds. */
  private readonly liveUsers = new Map<string, { apiKeyId: string; place: DocumentPlace; users: Map<string, { user: LiveUser; connections: number }> }>();
  /** Documents whose live users changed since they were last stored, and which users are stored. */
  private readonly unstored = new Set<string>();
  private readonly stored = new Map<string, Set<string>>();
  private storing: Promise<void> = Promise.resolve();
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshes = 0;
  private stopped = false;

  constructor(
    private readonly store: PresenceStore,
    private readonly transactions: Transactions,
    private readonly documents: DocumentsService,
    private readonly config: AppConfig,
  ) {}

  /** `presence/add`: the users' entries, replaced, until the TTL; the organization and document are created when missing. */
  async add(apiKeyId: string, request: PutPresenceRequest): Promise<void> {
    await this.putServerEntries(apiKeyId, request, false);
  }

  /**
   * `presence/update`: the fields sent change, the others stay, and the TTL starts again. A user
   * with no entry (or an expired one) gets one, so a heartbeat of updates never fails.
   */
  async update(apiKeyId: string, request: PutPresenceRequest): Promise<void> {
    await this.putServerEntries(apiKeyId, request, true);
  }

  /** `presence/delete`: the users' server entries go; live connections stay present while they last. */
  async remove(apiKeyId: string, request: DeletePresenceRequest): Promise<void> {
    const place = { organizationId: request.organizationId, documentId: request.documentId };
    await this.transactions.run(async (manager) => {
      await this.store.remove(manager, apiKeyId, place, SERVER_HOLDER, request.userIds);
      this.transactions.afterCommit(manager, () => this.changed(apiKeyId, place));
    });
  }

  /** Who is present in the document, one entry per user, by userId: server entries' fields over live tokens'. */
  async list(apiKeyId: string, request: GetPresenceRequest): Promise<PresentUser[]> {
    const rows = await this.store.active(apiKeyId, { organizationId: request.organizationId, documentId: request.documentId });
    const users = new Map<string, PresentUser>();
    for (const row of rows) {
      const user = users.get(row.userId) ?? { userId: row.userId, status: 'online', live: false };
      users.set(row.userId, user);
      if (row.holder === SERVER_HOLDER) {
        if (row.name !== null) user.name = row.name;
        if (row.email !== null) user.email = row.email;
        user.status = row.status;
        user.expiresAt = new Date(row.expiresAt).toISOString();
      } else {
        user.live = true;
        user.name ??= row.name ?? undefined;
        user.email ??= row.email ?? undefined;
      }
    }
    for (const user of users.values()) for (const field of ['name', 'email'] as const) if (user[field] === undefined) delete user[field];
    return [...users.values()];
  }

  /** A live connection of the user to the document opened on this instance. */
  joined(user: LiveUser): void {
    const key = keyOf(user.apiKeyId, user.place);
    const document = this.liveUsers.get(key) ?? { apiKeyId: user.apiKeyId, place: user.place, users: new Map() };
    this.liveUsers.set(key, document);
    const held = document.users.get(user.userId);
    if (held) held.connections++;
    else document.users.set(user.userId, { user, connections: 1 });
    this.scheduleStore(key);
  }

  /** A live connection `joined` announced closed. */
  left(user: LiveUser): void {
    const key = keyOf(user.apiKeyId, user.place);
    const document = this.liveUsers.get(key);
    const held = document?.users.get(user.userId);
    if (!document || !held) return;
    if (--held.connections > 0) return;
    document.users.delete(user.userId);
    this.scheduleStore(key);
  }

  /**
   * Keeps this instance's live entries from expiring and sweeps expired rows, on an instance
   * serving HTTP (the live rooms call it as they start; the CLI's app serves none).
   */
  start(): void {
    this.refreshTimer = setInterval(() => void this.refresh(), LIVE_ENTRY_REFRESH_MS).unref();
  }

  /**
   * Takes this instance's live users out of every document's presence: the live rooms call it
   * once their clients are closed, as the service stops. Nothing is stored after it.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.refreshTimer);
    await this.storing;
    if (!this.stored.size) return;
    await this.transactions
      .run((manager) => this.store.removeHolder(manager, this.holder))
      .catch((error: Error) => {
        this.logger.warn({ error: error.message }, 'live presence could not be removed; it expires by itself');
      });
  }

  private async putServerEntries(apiKeyId: string, request: PutPresenceRequest, merge: boolean): Promise<void> {
    const place = { organizationId: request.organizationId, documentId: request.documentId };
    const expiresAt = Date.now() + this.config.live.presenceTtlSeconds * 1000;
    await this.transactions.run(async (manager) => {
      await this.documents.ensureDocument(manager, apiKeyId, place.organizationId, place.documentId);
      await this.store.put(manager, apiKeyId, place, SERVER_HOLDER, request.users, expiresAt, { merge });
      this.transactions.afterCommit(manager, () => this.changed(apiKeyId, place));
    });
  }

  private changed(apiKeyId: string, place: DocumentPlace): void {
    for (const listener of this.listeners) listener(apiKeyId, place);
  }

  /** Stores the document's live users soon, after whatever is being stored now. */
  private scheduleStore(key: string): void {
    if (this.stopped) return;
    this.unstored.add(key);
    this.storing = this.storing.then(() => this.storeLiveUsers());
  }

  /** Writes the live users of the documents that changed, then tells the listeners. */
  private async storeLiveUsers(): Promise<void> {
    const keys = [...this.unstored];
    this.unstored.clear();
    if (!keys.length) return;
    const expiresAt = Date.now() + LIVE_ENTRY_TTL_MS;
    const written: { apiKeyId: string; place: DocumentPlace }[] = [];
    try {
      await this.transactions.run(async (manager) => {
        for (const key of keys) {
          const document = this.liveUsers.get(key);
          if (!document) continue;
          const present = [...document.users.values()].map(({ user }) => user);
          const gone = [...(this.stored.get(key) ?? [])].filter((userId) => !document.users.has(userId));
          if (gone.length) await this.store.remove(manager, document.apiKeyId, document.place, this.holder, gone);
          await this.store.put(manager, document.apiKeyId, document.place, this.holder, present, expiresAt, { merge: false });
          written.push(document);
        }
      });
    } catch (error) {
      // The next change or refresh stores them again.
      for (const key of keys) this.unstored.add(key);
      this.logger.warn({ error: (error as Error).message }, 'live presence could not be stored; the next refresh tries again');
      return;
    }
    for (const key of keys) {
      const document = this.liveUsers.get(key);
      if (!document) continue;
      if (document.users.size) this.stored.set(key, new Set(document.users.keys()));
      else {
        this.stored.delete(key);
        this.liveUsers.delete(key);
      }
    }
    for (const { apiKeyId, place } of written) this.changed(apiKeyId, place);
  }

  /** Keeps this instance's live entries from expiring, stores what failed to store, and now and then sweeps expired rows. */
  private async refresh(): Promise<void> {
    this.storing = this.storing.then(async () => {
      try {
        const sweep = ++this.refreshes % SWEEP_EVERY === 0;
        await this.transactions.run(async (manager) => {
          if (this.stored.size) await this.store.extend(manager, this.holder, Date.now() + LIVE_ENTRY_TTL_MS);
          if (sweep) await this.store.sweep(manager);
        });
      } catch (error) {
        this.logger.warn({ error: (error as Error).message }, 'live presence could not be refreshed');
      }
      if (this.unstored.size) await this.storeLiveUsers();
    });
  }
}
