import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Document, Hocuspocus, onAuthenticatePayload } from '@hocuspocus/server';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ioredis, onFirstUse } from '../common/optional-modules.js';
import type { EntityManager } from 'typeorm';
import type { WebSocket, WebSocketServer } from 'ws';
import { AccessService } from '../access/access.service.js';
import type { AccessRole } from '../access/entities/grant.entity.js';
import { groupBy } from '../common/collections.js';
import { DrainReports } from '../common/drain-reports.js';
import { ApiError } from '../common/errors.js';
import { HealthReports } from '../common/health-reports.js';
import { Metrics } from '../common/metrics.js';
import { Counter, Histogram } from 'prom-client';
import { AppConfig } from '../config/app-config.js';
import { CrdtService } from '../crdt/crdt.service.js';
import type { CrdtType } from '../crdt/crdt-data.js';
import { CrdtStore, type CrdtObserver, type StoredEditor } from '../crdt/crdt-store.js';
import { Transactions } from '../database/transactions.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import { UserTokens, type UserTokenClaims } from '../workspace/user-tokens.service.js';
import { PresenceService, type LiveUser } from './presence.service.js';
import type { DocumentPlace } from './presence-store.js';
import { documentPrefix, parseRoom, roomName, type Room } from './room-names.js';
import type { YWebsocketSession } from './y-websocket-session.js';
import { CrdtErrors } from '../crdt/crdt.errors.js';

/** The path of the Hocuspocus protocol's endpoint (`@hocuspocus/provider`, Tiptap's collaboration extension). */
export const LIVE_PATH = '/v2/live';
/** The y-websocket protocol's endpoint (y-websocket's `WebsocketProvider`): the room name follows it in the path. */
export const Y_WEBSOCKET_PATH = '/v2/live/yws';

/**
 * Why a connection is refused: Hocuspocus sends `reason` to the client (its provider's
 * `onAuthenticationFailed`); an empty message keeps Hocuspocus from printing it to the console.
 */
class Refusal extends Error {
  constructor(readonly reason: string) {
    super();
  }
}

/** What instances tell each other through Redis. */
type SignalBody =
  { kind: 'written'; room: string } | { kind: 'broadcast'; prefix: string; payload: string } | { kind: 'presence'; apiKeyId: string; place: DocumentPlace };
type Signal = SignalBody & { from: string };

/** A Redis connection of the live rooms: it reconnects by itself, and its errors are logged by whoever uses it. */
function liveRedis(url: string): Redis {
  const client = new (ioredis().Redis)(url, { maxRetriesPerRequest: null, retryStrategy: (attempt) => Math.min(attempt * 200, 2000) });
  client.on('error', () => undefined);
  return client;
}

/** Live state ids whose last data is kept for `merge`; the least recently broadcast go first. */
const MAX_LIVE_STATES = 10_000;

/** A room is an editor `crdt/add` made: clients cannot make one. */
const MISSING_EDITOR = 'No CRDT data found for this editor ID.';

/** The shared-editing stack (`live-engine.ts`), imported when the first client connects. */
const liveEngine = onFirstUse(() => import('./live-engine.js'));
type LiveEngine = Awaited<ReturnType<typeof liveEngine>>;

/** The rooms' server, made with the first connection: Hocuspocus, and the WebSocket server both protocols' clients come through. */
interface Rooms {
  engine: LiveEngine;
  hocuspocus: Hocuspocus;
  sockets: WebSocketServer;
}

const NO_DOCUMENTS: ReadonlyMap<string, Document> = new Map();

/** Who is connected, as `onAuthenticate` found: each connection's Hocuspocus context. */
interface LiveContext {
  room: Room;
  userId: string;
  /** The token's claims: its expiry, and the permissions it carries. */
  claims: UserTokenClaims;
}

/**
 * How often open connections' access is checked again: a grant removed or expired, a document
 * or user deleted, or a token expired reaches them within this and one check's time (the 5 s the
 * issue asks). Each instance checks its own connections against the database, so it holds
 * across instances; the cost is one resolution per room and user each time.
 */
const ACCESS_RECHECK_MS = 2500;

/**
 * Live shared editing over WebSocket, on the service's own port: `@hocuspocus/server` speaks the
 * Hocuspocus protocol (sync, awareness, auth, stateless messages), so `@hocuspocus/provider`
 * connects unchanged; this class binds it to the service:
 * - a room is a stored editor (`room-names.ts`), loaded from `CrdtStore` when its first client
 *   comes and written back through `CrdtService` (under the editor's row lock, merged with what
 *   REST wrote meanwhile, size-checked, observed like every write: `crdt.update_data` events)
 *   2 s after typing stops, at most every 10 s while it goes on, when the last client leaves and
 *   when the service stops;
 * - a client presents a user token (`auth/generate_token`), checked as `auth/token/verify`
 *   checks it for the room's key; its role on the document is the token's own `permissions`
 *   when it carries them, else what `auth/permissions/get` resolves: none is refused, a viewer
 *   may read but not write (Hocuspocus drops its updates); the role is resolved again every
 *   `ACCESS_RECHECK_MS` while the connection lasts;
 * - a REST write to an editor reaches the clients of its room once it commits.
 */
@Injectable()
export class LiveEditing implements OnApplicationBootstrap, BeforeApplicationShutdown, CrdtObserver {
  private readonly logger = new Logger('LiveEditing');
  /** Made when the first client connects (`startRooms`). */
  private rooms: Rooms | undefined;
  private roomsStarting: Promise<Rooms> | undefined;
  /**
   * Per loaded room, the users whose edits it holds unstored, in the order of their last edit:
   * the next store names the last as `lastUpdatedBy`, and tells each in an event.
   */
  private readonly writers = new Map<string, Set<string>>();
  /** The open y-websocket clients (Hocuspocus keeps its own). */
  private readonly yWebsocketSessions = new Set<YWebsocketSession>();
  /** Open connections per API key (`LIVE_MAX_CONNECTIONS_PER_KEY`). */
  private readonly connectionsPerKey = new Map<string, number>();
  /** Each connection's messages in its current second (`LIVE_MAX_MESSAGES_PER_SECOND`). */
  private readonly rates = new WeakMap<object, { second: number; count: number }>();
  private readonly messages: Counter;
  private readonly messagesSent: Counter;
  private readonly storeFailures: Counter;
  private readonly storeLatency: Histogram;
  /** Each loaded room's shape and how large its view may be by now (see `checkSize`). */
  private readonly sizes = new Map<string, RoomSize>();
  private stopping = false;
  private readonly instanceId = `live-${randomUUID()}`;
  /** With `REDIS_URL`: what other instances must hear of (REST writes, broadcasts), on a channel of their own. */
  private signals: { publisher: Redis; subscriber: Redis; channel: string } | undefined;
  private accessTimer: NodeJS.Timeout | undefined;
  private recheckingAccess = false;
  /** Per document with clients here: the next push of its presence, when a server entry expires. */
  private readonly presenceTimers = new Map<string, NodeJS.Timeout>();
  /** Hocuspocus connections counted in the presence (`connected` ran for them). */
  private readonly present = new WeakSet<LiveContext>();
  /** The last data broadcast per live state id (what `merge` merges into), the most recent `MAX_LIVE_STATES`. */
  private readonly liveStates = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly tokens: UserTokens,
    private readonly apiKeys: ApiKeyStore,
    private readonly access: AccessService,
    private readonly crdt: CrdtService,
    private readonly store: CrdtStore,
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
    private readonly presence: PresenceService,
    metrics: Metrics,
    health: HealthReports,
    drain: DrainReports,
  ) {
    const rooms = () => this.rooms?.hocuspocus.getDocumentsCount() ?? 0;
    const connections = () => this.rooms?.hocuspocus.getConnectionsCount() ?? 0;
    health.add('live', () => ({ rooms: rooms(), connections: connections() }));
    // Shutdown stores every room, then closes its clients.
    drain.add('liveRoomsToStore', rooms);
    drain.add('liveConnections', connections);
    metrics.gauge('live_open', 'Live editing on this instance: rooms loaded and connections open.', 'kind', () => ({
      rooms: rooms(),
      connections: connections(),
    }));
    this.messages = new Counter({ name: 'live_messages_received_total', help: 'Messages live clients sent.', registers: [metrics.registry] });
    this.messagesSent = new Counter({ name: 'live_messages_sent_total', help: 'Messages sent to live clients.', registers: [metrics.registry] });
    this.storeFailures = new Counter({
      name: 'live_store_failures_total',
      help: 'Stores of a live room that failed (the next store tries again).',
      registers: [metrics.registry],
    });
    this.storeLatency = new Histogram({
      name: 'live_store_duration_seconds',
      help: 'Time to store a live room into its editor.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [metrics.registry],
    });
  }

  /** Serves live editing once the app has an HTTP server (the CLI builds the app without one, and serves none). */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.adapterHost.httpAdapter) return;
    this.store.observers.add(this);
    this.presence.start();
    this.presence.listeners.add((apiKeyId, place) => {
      void this.pushPresence(apiKeyId, place);
      this.signal({ kind: 'presence', apiKeyId, place });
    });
    if (this.config.redisUrl) {
      const url = this.config.redisUrl;
      const prefix = `${this.config.redisKeyPrefix}live`;
      const signals = { publisher: liveRedis(url), subscriber: liveRedis(url), channel: `${prefix}:signals` };
      this.signals = signals;
      signals.subscriber.on('message', (_channel: string, message: string) => void this.onSignal(JSON.parse(message) as Signal));
      // Not awaited: the service starts while Redis is down, and subscribes once it is back.
      signals.subscriber.subscribe(signals.channel).catch((error: Error) => this.logger.warn({ error: error.message }, 'live signals not subscribed'));
    }
    this.accessTimer = setInterval(() => void this.recheckAccess(), ACCESS_RECHECK_MS).unref();
    const server = this.adapterHost.httpAdapter.getHttpServer() as import('node:http').Server;
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(request, socket, head));
  }

  /** The rooms' server, started with the first client (the same one for every later client). */
  private startedRooms(): Promise<Rooms> {
    this.roomsStarting ??= this.startRooms().then((rooms) => (this.rooms = rooms));
    return this.roomsStarting;
  }

  private async startRooms(): Promise<Rooms> {
    const engine = await liveEngine();
    const sockets = new engine.WebSocketServer({ noServer: true, maxPayload: this.config.live.messageBytes });
    const hocuspocus = new engine.Hocuspocus({
      quiet: true,
      timeout: this.config.live.timeoutMs,
      debounce: 2000,
      maxDebounce: 10_000,
      onAuthenticate: (payload) => this.authenticate(payload),
      onLoadDocument: ({ document, documentName }) => this.load(engine, documentName, document),
      beforeHandleMessage: async ({ documentName, document, update, connection }) => {
        this.checkRate(connection);
        this.checkSize(engine, documentName, document, update);
      },
      connected: async ({ context }) => {
        this.present.add(context as LiveContext);
        this.presence.joined(liveUserOf(context as LiveContext));
      },
      onDisconnect: async ({ context }) => {
        if (!(context as Partial<LiveContext>).room) return;
        this.released(context as LiveContext);
        if (this.present.delete(context as LiveContext)) this.presence.left(liveUserOf(context as LiveContext));
      },
      onChange: async ({ documentName, context }) => {
        const userId = (context as Partial<LiveContext>).userId;
        if (userId === undefined) return;
        const writers = this.writers.get(documentName) ?? new Set();
        writers.delete(userId);
        this.writers.set(documentName, writers.add(userId));
      },
      onStoreDocument: ({ document, documentName }) => this.persist(engine, documentName, document),
      afterUnloadDocument: async ({ documentName }) => {
        this.writers.delete(documentName);
        this.sizes.delete(documentName);
      },
    });
    if (this.config.redisUrl) {
      // Rooms open on several instances converge through Redis (updates and awareness), and one
      // instance at a time stores a room (a Redis lock): @hocuspocus/extension-redis, imported
      // only then (an ES import, not `require`: its CommonJS build would bring a second copy of
      // @hocuspocus/server and yjs).
      const { Redis: RedisExtension } = await import('@hocuspocus/extension-redis');
      const url = this.config.redisUrl;
      const prefix = `${this.config.redisKeyPrefix}live`;
      hocuspocus.configure({ extensions: [new RedisExtension({ createClient: () => liveRedis(url), prefix, identifier: this.instanceId })] });
    }
    return { engine, hocuspocus, sockets };
  }

  /** The rooms loaded on this instance (none before the first client came). */
  get documents(): ReadonlyMap<string, Document> {
    return this.rooms?.hocuspocus.documents ?? NO_DOCUMENTS;
  }

  /**
   * Sends a live state event (`livestate/broadcast`) as a stateless message to every client of
   * the document on this instance (every editor's room): `{"type":"livestate","liveStateDataId",
   * "data"}`, `data` merged into the last of its id first when `merge` is set.
   */
  broadcast(
    apiKeyId: string,
    event: { organizationId: string; documentId: string; liveStateDataId: string; data: Record<string, unknown>; merge?: boolean },
  ): void {
    const key = JSON.stringify([apiKeyId, event.organizationId, event.documentId, event.liveStateDataId]);
    const data = event.merge ? { ...this.liveStates.get(key), ...event.data } : event.data;
    this.liveStates.delete(key);
    this.liveStates.set(key, data);
    if (this.liveStates.size > MAX_LIVE_STATES) this.liveStates.delete(this.liveStates.keys().next().value!);
    const payload = JSON.stringify({ type: 'livestate', liveStateDataId: event.liveStateDataId, data });
    const prefix = documentPrefix(apiKeyId, event);
    this.sendStateless(prefix, payload);
    this.signal({ kind: 'broadcast', prefix, payload });
  }

  /**
   * Sends to this instance's clients of the rooms whose names start with `prefix`, one by one:
   * `Document.broadcastStateless` would also hand it to the Redis extension, and every instance
   * the signal reached would send it on again.
   */
  private sendStateless(prefix: string, payload: string): void {
    for (const [name, document] of this.documents) {
      if (name.startsWith(prefix)) for (const connection of document.getConnections()) connection.sendStateless(payload);
    }
  }

  /**
   * Sends the document's presence (`presence/get`'s answer) to its clients here, as a stateless
   * message `{"type":"presence","organizationId","documentId","users"}`, and again when the
   * first server entry in it expires.
   */
  private async pushPresence(apiKeyId: string, place: DocumentPlace): Promise<void> {
    const prefix = documentPrefix(apiKeyId, place);
    clearTimeout(this.presenceTimers.get(prefix));
    this.presenceTimers.delete(prefix);
    const rooms = [...this.documents.entries()].filter(([name, document]) => name.startsWith(prefix) && document.getConnections().length);
    if (!rooms.length || this.stopping) return;
    try {
      const users = await this.presence.list(apiKeyId, place);
      this.sendStateless(prefix, JSON.stringify({ type: 'presence', ...place, users }));
      const expiries = users.flatMap((user) => (user.expiresAt ? [Date.parse(user.expiresAt)] : []));
      if (expiries.length) {
        const timer = setTimeout(() => void this.pushPresence(apiKeyId, place), Math.max(0, Math.min(...expiries) - Date.now()) + 20);
        this.presenceTimers.set(prefix, timer.unref());
      }
    } catch (error) {
      this.logger.warn({ error: (error as Error).message }, 'presence could not be sent to live clients');
    }
  }

  /** Tells the other instances (none without `REDIS_URL`). */
  private signal(signal: SignalBody): void {
    if (!this.signals) return;
    this.signals.publisher.publish(this.signals.channel, JSON.stringify({ ...signal, from: this.instanceId })).catch((error: Error) => {
      this.logger.warn({ error: error.message }, 'a live signal could not be published');
    });
  }

  /** Another instance wrote an editor (its room here loads the stored state) or broadcast to a document. */
  private async onSignal(signal: Signal): Promise<void> {
    if (signal.from === this.instanceId) return;
    if (signal.kind === 'broadcast') return this.sendStateless(signal.prefix, signal.payload);
    if (signal.kind === 'presence') return this.pushPresence(signal.apiKeyId, signal.place);
    const rooms = this.rooms;
    const document = rooms?.hocuspocus.documents.get(signal.room);
    const room = parseRoom(signal.room);
    if (!rooms || !document || !room) return;
    const stored = await this.store.find(room.apiKeyId, room);
    if (stored) rooms.engine.applyUpdate(document, stored.state);
  }

  /**
   * Takes no more clients, stores every room, and closes its clients (their providers reconnect,
   * to another instance or to this one once it is back).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.accessTimer);
    // Rooms still starting for a client that came just before: they are stopped once started.
    const rooms = this.roomsStarting && (await this.roomsStarting.catch(() => undefined));
    if (rooms) {
      const { engine, hocuspocus, sockets } = rooms;
      await Promise.all([...hocuspocus.documents.entries()].map(([name, document]) => this.persist(engine, name, document)));
      hocuspocus.closeConnections();
      for (const websocket of sockets.clients) websocket.terminate();
      sockets.close();
    }
    for (const timer of this.presenceTimers.values()) clearTimeout(timer);
    await this.presence.stop();
    if (rooms) await rooms.hocuspocus.hooks('onDestroy', { instance: rooms.hocuspocus });
    if (this.signals) for (const client of [this.signals.publisher, this.signals.subscriber]) client.disconnect();
  }

  /** A REST write (or another room's store) reaches the room's clients once it commits. */
  async crdtWritten(manager: EntityManager, apiKeyId: string, editor: StoredEditor): Promise<void> {
    const name = roomName({ apiKeyId, organizationId: editor.organizationId, documentId: editor.documentId, editorId: editor.editorId });
    this.transactions.afterCommit(manager, () => {
      // No origin: Hocuspocus sends it to every client and does not store it again.
      const rooms = this.rooms;
      const document = rooms?.hocuspocus.documents.get(name);
      if (rooms && document) rooms.engine.applyUpdate(document, editor.state);
      this.signal({ kind: 'written', room: name });
    });
  }

  /**
   * Resolves every open connection's role again: one that lost access (or whose token expired)
   * is closed with the reason, one that became a viewer stops writing, one that became an
   * editor may write. One resolution per room and user, however many connections they hold.
   */
  private async recheckAccess(): Promise<void> {
    if (this.recheckingAccess) return;
    this.recheckingAccess = true;
    try {
      // A client that does not read what it is sent is dropped before its backlog grows further.
      for (const websocket of this.rooms?.sockets.clients ?? []) if (websocket.bufferedAmount > this.config.live.bufferedBytes) websocket.terminate();
      // Clients grouped by document: one resolution serves all of a document's users, and the
      // check yields between documents, so a thousand connections never stall the rooms' traffic.
      const now = Math.floor(Date.now() / 1000);
      const unresolved: ReturnType<LiveEditing['openClients']> = [];
      for (const client of this.openClients()) {
        const { room, claims } = client.context;
        if (claims.exp <= now) {
          client.close(4401, 'Invalid or expired token.');
          continue;
        }
        // A token naming the document decides alone: the stored grants are read only without one.
        const role = roleInToken(claims, room);
        if (role) client.setReadOnly(role === 'viewer');
        else unresolved.push(client);
      }
      for (const clients of groupBy(unresolved, (client) => documentPrefix(client.context.room.apiKeyId, client.context.room)).values()) {
        const { room } = clients[0]!.context;
        const userIds = [...new Set(clients.map((client) => client.context.userId))];
        const roles = await this.access.documentRoles(room.apiKeyId, room.organizationId, room.documentId, userIds);
        for (const client of clients) {
          const role = roles.get(client.context.userId);
          if (!role) client.close(4403, 'No access to this document.');
          else client.setReadOnly(role === 'viewer');
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      this.logger.warn({ error: (error as Error).message }, 'live access could not be checked again; the next check tries');
    } finally {
      this.recheckingAccess = false;
    }
  }

  /** Every open client of either protocol, as the access check sees it. */
  private openClients(): { context: LiveContext; close(code: number, reason: string): void; setReadOnly(readOnly: boolean): void }[] {
    const hocuspocusClients = [...this.documents.values()].flatMap((document) =>
      document
        .getConnections()
        .filter((connection) => (connection.context as Partial<LiveContext>).claims !== undefined)
        .map((connection) => ({
          context: connection.context as LiveContext,
          close: (code: number, reason: string) => connection.close({ code, reason }),
          setReadOnly: (readOnly: boolean) => void (connection.readOnly = readOnly),
        })),
    );
    const yWebsocketClients = [...this.yWebsocketSessions].map((session) => ({
      context: session.context as LiveContext,
      close: (code: number, reason: string) => session.close(code, reason),
      setReadOnly: (readOnly: boolean) => void (session.readOnly = readOnly),
    }));
    return [...hocuspocusClients, ...yWebsocketClients];
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (request.url ?? '').split('?')[0]!;
    const serve: ((websocket: WebSocket, rooms: Rooms) => void) | undefined = path.startsWith(`${Y_WEBSOCKET_PATH}/`)
      ? (websocket, rooms) => void this.serveYWebsocketClient(rooms, websocket, request)
      : path === LIVE_PATH
        ? (websocket, rooms) => rooms.hocuspocus.handleConnection(websocket, request)
        : undefined;
    const refuse = (status: string) => socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    if (!serve || this.stopping) return void refuse(this.stopping ? '503 Service Unavailable' : '404 Not Found');
    this.startedRooms().then(
      (rooms) => {
        if (this.stopping) return void refuse('503 Service Unavailable');
        rooms.sockets.handleUpgrade(request, socket, head, (websocket) => {
          // A message past LIVE_MAX_MESSAGE_BYTES (and any other protocol error) closes the socket
          // (1009 and the like) and is reported here; unheard, it would stop the process.
          websocket.on('error', (error) => this.logger.warn({ error: error.message }, 'a live connection failed'));
          // Both protocols send through the socket's writer: it counts messages out and batches them.
          rooms.engine.SocketWriter.attach(websocket, () => this.messagesSent.inc());
          serve(websocket, rooms);
        });
      },
      (error: Error) => {
        this.logger.error({ err: error }, 'live editing could not start');
        refuse('500 Internal Server Error');
      },
    );
  }

  private async authenticate({ token, documentName, connectionConfig }: onAuthenticatePayload): Promise<LiveContext> {
    const { context, role } = await this.authorize(documentName, token);
    if (role === 'viewer') connectionConfig.readOnly = true;
    return context;
  }

  /**
   * Who may join a room with this token, and with which role, for either protocol; counts the
   * connection against its key's limit. A refusal's reason is what the client is told.
   */
  private async authorize(documentName: string, token: string): Promise<{ context: LiveContext; role: AccessRole }> {
    const room = parseRoom(documentName);
    if (!room) throw new Refusal('Unknown room: a room is <apiKey>/<organizationId>/<documentId>/<editorId>, each percent-encoded.');
    if (!(await this.apiKeys.profile(room.apiKeyId))) throw new Refusal('Unknown API key.');
    let claims: UserTokenClaims;
    try {
      claims = await this.tokens.verify({ apiKeyId: room.apiKeyId, workspaceId: '' }, token);
    } catch (error) {
      if (error instanceof ApiError) throw new Refusal(error.message);
      throw error;
    }
    const role = roleInToken(claims, room) ?? (await this.access.documentRole(room.apiKeyId, room.organizationId, room.documentId, claims.userId));
    if (!role) throw new Refusal('No access to this document.');
    if (!(await this.store.exists(room.apiKeyId, room))) throw new Refusal(MISSING_EDITOR);
    const open = this.connectionsPerKey.get(room.apiKeyId) ?? 0;
    const limit = this.config.live.connectionsPerKey;
    if (limit && open >= limit) throw new Refusal(`Too many live connections for this API key: at most ${limit} on one instance.`);
    this.connectionsPerKey.set(room.apiKeyId, open + 1);
    return { context: { room, userId: claims.userId, claims }, role };
  }

  private released(context: LiveContext): void {
    this.connectionsPerKey.set(context.room.apiKeyId, (this.connectionsPerKey.get(context.room.apiKeyId) ?? 1) - 1);
  }

  /**
   * A y-websocket client (`WebsocketProvider` with `serverUrl` `…/v2/live/yws`, the room name as
   * its room and `params: { token }`): authorized as a Hocuspocus client is, then served over the
   * room's Hocuspocus document (a direct connection keeps it loaded), so both protocols' clients
   * share the room. A refusal closes the socket with code 4403 and the reason.
   */
  private async serveYWebsocketClient(rooms: Rooms, websocket: WebSocket, request: IncomingMessage): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://live');
    const name = url.pathname.slice(`${Y_WEBSOCKET_PATH}/`.length);
    // Messages that arrive while the client is authorized wait for it (y-websocket sends its first sync at once).
    const early: Buffer[] = [];
    const hold = (data: Buffer) => early.push(data);
    websocket.on('message', hold);
    let authorized: { context: LiveContext; role: AccessRole };
    try {
      authorized = await this.authorize(name, url.searchParams.get('token') ?? '');
    } catch (error) {
      websocket.close(4403, ((error as Refusal).reason ?? 'Refused').slice(0, 120));
      return;
    }
    const connection = await rooms.hocuspocus.openDirectConnection(name, authorized.context);
    const session = rooms.engine.serveYWebsocket(websocket, connection.document!, {
      context: authorized.context,
      readOnly: authorized.role === 'viewer',
      check: (update) => {
        this.checkRate(websocket);
        if (update) this.checkUpdateSize(rooms.engine, name, connection.document!, update);
      },
      closed: () => {
        this.yWebsocketSessions.delete(session);
        this.released(authorized.context);
        this.presence.left(liveUserOf(authorized.context));
        void connection.disconnect();
      },
    });
    this.yWebsocketSessions.add(session);
    this.presence.joined(liveUserOf(authorized.context));
    websocket.off('message', hold);
    for (const data of early) websocket.emit('message', data);
  }

  private async load(engine: LiveEngine, name: string, document: Document): Promise<void> {
    const room = parseRoom(name)!;
    const stored = await this.store.find(room.apiKeyId, room);
    if (!stored) throw new Error(MISSING_EDITOR);
    engine.applyUpdate(document, stored.state);
    this.sizes.set(name, { type: stored.type, contentKey: stored.contentKey, measured: Buffer.byteLength(stored.dataJson), since: 0 });
  }

  /** Closes a connection past `LIVE_MAX_MESSAGES_PER_SECOND` (counted per second). */
  private checkRate(connection: object): void {
    const limit = this.config.live.messagesPerSecond;
    if (!limit) return;
    const second = Math.floor(Date.now() / 1000);
    const rate = this.rates.get(connection);
    if (!rate || rate.second !== second) return void this.rates.set(connection, { second, count: 1 });
    if (++rate.count > limit) throw Object.assign(new Error(), { code: 4429, reason: `Too many messages: at most ${limit} a second.` });
  }

  /**
   * Refuses a client's update that would take the room's view past `CRDT_MAX_BYTES` before it
   * is applied or sent on: Hocuspocus closes the connection with the reason, and neither the
   * room nor the stored editor changes. Measuring the view costs a copy of the document, so it
   * is measured only when the updates since the last measure could have crossed the limit: an
   * update adds at most six bytes of JSON per byte of its own (a control character written as
   * `\u00XX`), so small edits to a document well under the limit are let through unmeasured.
   */
  private checkSize(engine: LiveEngine, name: string, document: Document, message: Uint8Array): void {
    this.messages.inc();
    const update = engine.yjsUpdateIn(message);
    if (update) this.checkUpdateSize(engine, name, document, update);
  }

  /** `checkSize` for one Yjs update, whichever protocol brought it. */
  private checkUpdateSize(engine: LiveEngine, name: string, document: Document, update: Uint8Array): void {
    const size = this.sizes.get(name);
    if (!size) return;
    size.since += 6 * update.byteLength;
    if (size.measured + size.since <= this.config.crdtMaxBytes) return;
    const probe = engine.EditorContent.load(size.type, size.contentKey, 0, engine.encodeStateAsUpdate(document));
    probe.applyUpdate(update);
    const bytes = Buffer.byteLength(JSON.stringify(probe.view()));
    if (bytes > this.config.crdtMaxBytes) throw Object.assign(new Error(), { code: 4413, reason: CrdtErrors.tooLarge(this.config.crdtMaxBytes).message });
    size.measured = bytes;
    size.since = 0;
  }

  /**
   * Writes the room's document into its stored editor, merged with what is stored, when its
   * clients here edited it since the last store (what REST wrote is stored, and what came
   * through Redis is the sending instance's to store).
   */
  private async persist(engine: LiveEngine, name: string, document: Document): Promise<void> {
    const writers = this.writers.get(name);
    if (!writers?.size) return;
    this.writers.delete(name);
    const room = parseRoom(name)!;
    const stored = this.storeLatency.startTimer();
    const users = [...writers];
    try {
      await this.crdt.applyUpdate(room.apiKeyId, room, engine.encodeStateAsUpdate(document), { userId: users.at(-1)!, sessionId: null, users });
      stored();
    } catch (error) {
      // The next store tries again for them, before whoever typed since.
      for (const userId of this.writers.get(name) ?? []) {
        writers.delete(userId);
        writers.add(userId);
      }
      this.writers.set(name, writers);
      this.storeFailures.inc();
      this.logger.warn({ room: name, error: (error as Error).message }, 'a live room could not be stored');
    }
  }
}

/** A loaded room's editor shape, its view's bytes when last measured, and at most how many bytes updates added since. */
interface RoomSize {
  type: CrdtType;
  contentKey: string;
  measured: number;
  since: number;
}

/** A connection's user as the document's presence counts it: the token's name and e-mail. */
function liveUserOf({ room, userId, claims }: LiveContext): LiveUser {
  const { name, email } = claims.userProperties;
  return { apiKeyId: room.apiKeyId, place: { organizationId: room.organizationId, documentId: room.documentId }, userId, name, email };
}

/** The role a token's own `permissions` give on the room's document, when they name it (else the stored grants decide). */
function roleInToken(claims: UserTokenClaims, room: Room): AccessRole | undefined {
  const now = Math.floor(Date.now() / 1000);
  const resource = claims.permissions?.resources.find(
    (r) => r.type === 'document' && r.id === room.documentId && r.organizationId === room.organizationId && (r.expiresAt === undefined || r.expiresAt > now),
  );
  return resource ? (resource.accessRole ?? 'editor') : undefined;
}
