import { fileURLToPath } from 'node:url';
import { ConfigError, type EnvReader, parseBool, parseBytes, parseEnum, parseInteger, parseString, parseTrustProxy, parseUrl } from './parsers.js';

/** The HTTP frameworks the service runs on (see `src/common/http`). */
export const HTTP_ADAPTERS = ['fastify', 'express'] as const;
export type HttpAdapterName = (typeof HTTP_ADAPTERS)[number];

/** Database engine in use: the embedded default or a PostgreSQL server. */
export type DatabaseDialect = 'sqlite' | 'postgres';

/**
 * The whole runtime configuration, parsed and validated once at start-up.
 * Inject it by class (`constructor(private readonly config: AppConfig)`); nothing outside
 * `src/config` reads `process.env`.
 */
export class AppConfig {
  /** The HTTP framework under Nest (`HTTP_ADAPTER`): `fastify` (default, faster) or `express`. */
  readonly httpAdapter!: HttpAdapterName;
  /** HTTP port (`PORT`). */
  readonly port!: number;
  /** Bind address (`HOST`). */
  readonly host!: string;
  /** Folder holding the embedded database and the generated master key (`DATA_DIR`). */
  readonly dataDir!: string;
  /** Which engine `database` points at. */
  readonly dialect!: DatabaseDialect;
  /** `postgres://…` URL (`DATABASE_URL`), or the SQLite file path / `:memory:` (`SQLITE_FILE`). */
  readonly database!: string;
  /** SQLite: the page cache of each of the service's two connections, in bytes (`SQLITE_CACHE_SIZE`). */
  readonly sqliteCacheBytes!: number;
  /** Run pending migrations at start-up (`MIGRATIONS_RUN`). */
  readonly migrationsRun!: boolean;
  /** PostgreSQL: longest wait for a connection of the pool, in ms (`DATABASE_POOL_WAIT_MS`); longer answers 503 UNAVAILABLE. */
  readonly databasePoolWaitMs!: number;
  /** PostgreSQL: longest run of one statement, in ms (`DATABASE_STATEMENT_TIMEOUT_MS`; 0: none); longer answers 503 UNAVAILABLE. Migrations are not bounded. */
  readonly databaseStatementTimeoutMs!: number;
  /** PostgreSQL: longest wait for a row or table lock, in ms (`DATABASE_LOCK_TIMEOUT_MS`; 0: none); longer answers 503 UNAVAILABLE. */
  readonly databaseLockTimeoutMs!: number;
  /** Shared rate-limit counters (`REDIS_URL`); unset: in-process counters. */
  readonly redisUrl!: string | undefined;
  /** Prefix of every Redis key, so deployments can share one Redis (`REDIS_KEY_PREFIX`). */
  readonly redisKeyPrefix!: string;
  /** 32-byte key that encrypts secrets at rest (`MASTER_KEY`, or generated into `DATA_DIR`). */
  readonly masterKey!: Buffer;
  /** The key file the master key was read from or generated into (the embedded default); undefined when `MASTER_KEY` is set. */
  readonly masterKeyFile?: string;
  /** The file a master key was generated into at this start (the one secret to back up); else undefined. */
  readonly masterKeyGeneratedInto?: string;
  /** Product part of header names: `x-<product>-api-key` (`HEADER_PRODUCT`). */
  readonly headerProduct!: string;
  /** Host allowed for login-link `continueUrl` besides `localhost` (`CONSOLE_DOMAIN`). */
  readonly consoleDomain!: string;
  /** How long a console sign-in lasts, in hours (`CONSOLE_SESSION_TTL_HOURS`). */
  readonly consoleSessionTtlHours!: number;
  /** SMTP transport URL (`SMTP_URL`); unset: mail is printed and kept. */
  readonly smtpUrl!: string | undefined;
  /** Sender of the service's own mail (`MAIL_FROM`). */
  readonly mailFrom!: string;
  /** Third-party e-mail provider's mail-send endpoint (`EMAIL_PROVIDER_URL`). */
  readonly emailProviderUrl!: string;
  /** Folder of the notification mail templates (`MAIL_TEMPLATES_DIR`; default: the bundled `templates/mail`). */
  readonly mailTemplatesDir!: string;
  /** Allow webhook deliveries to private and loopback addresses (`WEBHOOK_ALLOW_PRIVATE_NETWORKS`). */
  readonly webhookAllowPrivateNetworks!: boolean;
  /** Offer advanced webhooks (`ADVANCED_WEBHOOKS`). */
  readonly advancedWebhooks!: boolean;
  /** Longest wait for a webhook receiver's whole answer, in ms (`WEBHOOK_TIMEOUT_MS`, contract 6.3: 15 s). */
  readonly webhookTimeoutMs!: number;
  /**
   * Delivery attempts this instance runs at once (`DELIVERY_CONCURRENCY`); to one destination at
   * most 16 (or a quarter, when smaller), and 2 while it is slow. 0: this instance delivers
   * nothing (others sharing the database do).
   */
  readonly deliveryConcurrency!: number;
  /** Days settled webhook messages and their attempts are kept (`DELIVERY_RETENTION_DAYS`); 0 keeps them. */
  readonly deliveryRetentionDays!: number;
  /**
   * Run user-data deletion jobs on this instance (`DATA_DELETION_WORKER`). false: jobs wait for
   * an instance that runs them (another one sharing the database, or this one after a restart).
   */
  readonly dataDeletionWorker!: boolean;
  /**
   * Which proxies to believe about the client address (`TRUST_PROXY`): `false` (default),
   * `true`, a hop count, or a comma-separated list of addresses/CIDRs. Per-IP rate limits
   * depend on it behind a reverse proxy.
   */
  readonly trustProxy!: boolean | number | string[];
  /** Largest accepted request body in bytes (`BODY_LIMIT`, e.g. `1mb`). */
  readonly bodyLimitBytes!: number;
  /** How long an answer is kept for a repeat with its `Idempotency-Key`, in hours (`IDEMPOTENCY_RETENTION_HOURS`). */
  readonly idempotencyRetentionHours!: number;
  /** Largest shared-editing content per editor, as JSON, in bytes (`CRDT_MAX_BYTES`). */
  readonly crdtMaxBytes!: number;
  /** Reactions one comment may hold (`COMMENT_MAX_REACTIONS`). */
  readonly commentMaxReactions!: number;
  /** Files attached to comments: limits, links and where the bytes live. */
  readonly attachments!: AttachmentSettings;
  /** The service's address as clients reach it, for links it hands out (`PUBLIC_URL`); unset: the request's own host. */
  readonly publicUrl!: string | undefined;
  /** Limits of live editing over WebSocket. */
  readonly live!: LiveLimits;
  /** Pino log level (`LOG_LEVEL`). */
  readonly logLevel!: LogLevel;
  /** How long graceful shutdown waits for in-flight requests (`SHUTDOWN_TIMEOUT_MS`). */
  readonly shutdownTimeoutMs!: number;
  /** Requests per window; 0 disables that limit. */
  readonly rateLimits!: RateLimitSettings;
}

export interface AttachmentSettings {
  /** Largest file, in bytes (`ATTACHMENT_MAX_BYTES`). */
  readonly maxBytes: number;
  /** MIME types accepted, `type/*` for a whole type (`ATTACHMENT_TYPES`, comma-separated). */
  readonly types: readonly string[];
  /** How long a download link works (`ATTACHMENT_URL_TTL_SECONDS`). */
  readonly urlTtlSeconds: number;
  /** How long a pre-signed upload URL may be started (`ATTACHMENT_UPLOAD_URL_TTL_SECONDS`). */
  readonly uploadUrlTtlSeconds: number;
  /** How often blobs of deleted comments are looked for and deleted (`ATTACHMENT_SWEEP_SECONDS`). */
  readonly sweepSeconds: number;
  /** An S3-compatible bucket (`ATTACHMENT_S3_*`); unset: files under `DATA_DIR/attachments`. */
  readonly s3: { bucket: string; endpoint?: string; region: string; accessKeyId?: string; secretAccessKey?: string } | undefined;
}

export interface LiveLimits {
  /** Open live connections per API key on one instance; 0: no limit (`LIVE_MAX_CONNECTIONS_PER_KEY`). */
  readonly connectionsPerKey: number;
  /** Messages a live connection may send per second before it is closed; 0: no limit (`LIVE_MAX_MESSAGES_PER_SECOND`). */
  readonly messagesPerSecond: number;
  /** Largest WebSocket message a live client may send, in bytes (`LIVE_MAX_MESSAGE_BYTES`). */
  readonly messageBytes: number;
  /** Bytes waiting to be sent to one client past which it is dropped as too slow a reader (`LIVE_MAX_BUFFERED_BYTES`). */
  readonly bufferedBytes: number;
  /** A client that answers no ping for this long is dropped (`LIVE_TIMEOUT_MS`). */
  readonly timeoutMs: number;
  /** How long an entry of `presence/add|update` lasts after its last write (`LIVE_PRESENCE_TTL_SECONDS`). */
  readonly presenceTtlSeconds: number;
}

export interface RateLimitSettings {
  /** Workspace create, per client IP, per hour (`RATE_LIMIT_WORKSPACE_CREATE`). */
  readonly workspaceCreatePerHour: number;
  /** Send login link, per client IP, per minute (`RATE_LIMIT_LOGIN_LINK`). */
  readonly loginLinkPerMinute: number;
  /** Send login link, per target e-mail, per hour (`RATE_LIMIT_LOGIN_LINK_EMAIL`). */
  readonly loginLinkPerEmailPerHour: number;
  /** `login/verify` per client address per minute (`RATE_LIMIT_LOGIN_VERIFY`). */
  readonly loginVerifyPerMinute: number;
  /** `email/status` per client address per minute (`RATE_LIMIT_EMAIL_STATUS`). */
  readonly emailStatusPerMinute: number;
  /** Get workspace, per workspace, per minute (`RATE_LIMIT_WORKSPACE_GET`). */
  readonly workspaceGetPerMinute: number;
  /** All API-key-level operations together, per API key, per minute (`RATE_LIMIT_API_KEY`). */
  readonly apiKeyPerMinute: number;
  /** Wrong credentials at v1 `auth/token/get` (public), per client address, per minute (`RATE_LIMIT_TOKEN_FAILURES`). */
  readonly tokenFailuresPerMinute: number;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every variable the service reads, with its default. docs/configuration.md's table
 * lists exactly these (a unit test keeps the two in step).
 */
/** The templates shipped with the service (`templates/mail` at the project's root, beside `dist`). */
const BUNDLED_MAIL_TEMPLATES = fileURLToPath(new URL('../../../templates/mail', import.meta.url));

/** What attachments may be by default: images, audio, video, PDF, plain text and office documents. */
const DEFAULT_ATTACHMENT_TYPES =
  'image/*,audio/*,video/*,application/pdf,text/plain,text/csv,text/markdown,application/zip,application/json,application/msword,application/vnd.ms-excel,application/vnd.ms-powerpoint,application/vnd.openxmlformats-officedocument.wordprocessingml.document,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,application/vnd.openxmlformats-officedocument.presentationml.presentation';

export const CONFIG_VARIABLES = [
  'HTTP_ADAPTER',
  'PORT',
  'HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'SQLITE_FILE',
  'SQLITE_CACHE_SIZE',
  'MIGRATIONS_RUN',
  'DATABASE_POOL_WAIT_MS',
  'DATABASE_STATEMENT_TIMEOUT_MS',
  'DATABASE_LOCK_TIMEOUT_MS',
  'REDIS_URL',
  'REDIS_KEY_PREFIX',
  'MASTER_KEY',
  'HEADER_PRODUCT',
  'CONSOLE_DOMAIN',
  'CONSOLE_SESSION_TTL_HOURS',
  'SMTP_URL',
  'MAIL_FROM',
  'EMAIL_PROVIDER_URL',
  'MAIL_TEMPLATES_DIR',
  'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
  'ADVANCED_WEBHOOKS',
  'WEBHOOK_TIMEOUT_MS',
  'DELIVERY_CONCURRENCY',
  'DELIVERY_RETENTION_DAYS',
  'DATA_DELETION_WORKER',
  'BODY_LIMIT',
  'IDEMPOTENCY_RETENTION_HOURS',
  'CRDT_MAX_BYTES',
  'COMMENT_MAX_REACTIONS',
  'ATTACHMENT_MAX_BYTES',
  'ATTACHMENT_TYPES',
  'ATTACHMENT_URL_TTL_SECONDS',
  'ATTACHMENT_UPLOAD_URL_TTL_SECONDS',
  'ATTACHMENT_SWEEP_SECONDS',
  'ATTACHMENT_S3_BUCKET',
  'ATTACHMENT_S3_ENDPOINT',
  'ATTACHMENT_S3_REGION',
  'ATTACHMENT_S3_ACCESS_KEY_ID',
  'ATTACHMENT_S3_SECRET_ACCESS_KEY',
  'PUBLIC_URL',
  'LIVE_MAX_CONNECTIONS_PER_KEY',
  'LIVE_MAX_MESSAGES_PER_SECOND',
  'LIVE_MAX_MESSAGE_BYTES',
  'LIVE_MAX_BUFFERED_BYTES',
  'LIVE_TIMEOUT_MS',
  'LIVE_PRESENCE_TTL_SECONDS',
  'TRUST_PROXY',
  'LOG_LEVEL',
  'SHUTDOWN_TIMEOUT_MS',
  'RATE_LIMIT_WORKSPACE_CREATE',
  'RATE_LIMIT_LOGIN_LINK',
  'RATE_LIMIT_LOGIN_LINK_EMAIL',
  'RATE_LIMIT_LOGIN_VERIFY',
  'RATE_LIMIT_EMAIL_STATUS',
  'RATE_LIMIT_WORKSPACE_GET',
  'RATE_LIMIT_API_KEY',
  'RATE_LIMIT_TOKEN_FAILURES',
] as const;

/**
 * Parses the environment into everything but the master key, whose resolution may touch the
 * data folder (see `resolveMasterKey`). Throws a `ConfigError` naming the first bad variable.
 */
export function parseSettings(read: EnvReader): Omit<AppConfig, 'masterKey'> & { masterKeyBase64: string | undefined } {
  const dataDir = parseString(read, 'DATA_DIR', './data');
  const databaseUrl = parseUrl(read, 'DATABASE_URL', undefined, ['postgres:', 'postgresql:']);
  const sqliteFile = parseString(read, 'SQLITE_FILE', `${dataDir.replace(/\/+$/, '')}/svc.sqlite`);
  const headerProduct = parseString(read, 'HEADER_PRODUCT', 'svc');
  if (!/^[a-z0-9][a-z0-9-]{0,30}$/.test(headerProduct)) {
    throw new ConfigError('HEADER_PRODUCT', 'must be lower-case letters, digits and dashes (at most 31)', headerProduct);
  }
  return {
    httpAdapter: parseEnum(read, 'HTTP_ADAPTER', 'fastify', HTTP_ADAPTERS),
    port: parseInteger(read, 'PORT', 8080, 0, 65535),
    host: parseString(read, 'HOST', '0.0.0.0'),
    dataDir,
    dialect: databaseUrl ? 'postgres' : 'sqlite',
    database: databaseUrl ?? sqliteFile,
    // SQLite's own default; better-sqlite3 builds it with 16 MB (see docs/reference/rules.md, "Page cache").
    sqliteCacheBytes: parseBytes(read, 'SQLITE_CACHE_SIZE', '2mb'),
    migrationsRun: parseBool(read, 'MIGRATIONS_RUN', true),
    // Below the 30 s a client gets to send its request, so a stuck database answers before the client gives up.
    databasePoolWaitMs: parseInteger(read, 'DATABASE_POOL_WAIT_MS', 5_000, 1, 60_000),
    databaseStatementTimeoutMs: parseInteger(read, 'DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 0, 3_600_000),
    databaseLockTimeoutMs: parseInteger(read, 'DATABASE_LOCK_TIMEOUT_MS', 5_000, 0, 3_600_000),
    redisUrl: parseUrl(read, 'REDIS_URL', undefined, ['redis:', 'rediss:']),
    redisKeyPrefix: parseString(read, 'REDIS_KEY_PREFIX', 'svc:rl:'),
    masterKeyBase64: read('MASTER_KEY') || undefined,
    headerProduct,
    consoleDomain: parseString(read, 'CONSOLE_DOMAIN', 'console.localhost').toLowerCase(),
    consoleSessionTtlHours: parseInteger(read, 'CONSOLE_SESSION_TTL_HOURS', 12, 1, 720),
    smtpUrl: parseUrl(read, 'SMTP_URL', undefined, ['smtp:', 'smtps:']),
    mailFrom: parseString(read, 'MAIL_FROM', 'no-reply@localhost'),
    emailProviderUrl: parseUrl(read, 'EMAIL_PROVIDER_URL', 'https://api.sendgrid.com/v3/mail/send', ['http:', 'https:'])!,
    mailTemplatesDir: parseString(read, 'MAIL_TEMPLATES_DIR', BUNDLED_MAIL_TEMPLATES),
    webhookAllowPrivateNetworks: parseBool(read, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    advancedWebhooks: parseBool(read, 'ADVANCED_WEBHOOKS', true),
    webhookTimeoutMs: parseInteger(read, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
    deliveryConcurrency: parseInteger(read, 'DELIVERY_CONCURRENCY', 256, 0, 10_000),
    deliveryRetentionDays: parseInteger(read, 'DELIVERY_RETENTION_DAYS', 30, 0, 3650),
    dataDeletionWorker: parseBool(read, 'DATA_DELETION_WORKER', true),
    bodyLimitBytes: parseBytes(read, 'BODY_LIMIT', '1mb'),
    idempotencyRetentionHours: parseInteger(read, 'IDEMPOTENCY_RETENTION_HOURS', 24, 1, 720),
    crdtMaxBytes: parseBytes(read, 'CRDT_MAX_BYTES', '1mb'),
    commentMaxReactions: parseInteger(read, 'COMMENT_MAX_REACTIONS', 500, 1, 10_000),
    attachments: {
      maxBytes: parseBytes(read, 'ATTACHMENT_MAX_BYTES', '25mb'),
      types: parseString(read, 'ATTACHMENT_TYPES', DEFAULT_ATTACHMENT_TYPES)
        .split(',')
        .map((type) => type.trim().toLowerCase())
        .filter(Boolean),
      urlTtlSeconds: parseInteger(read, 'ATTACHMENT_URL_TTL_SECONDS', 3600, 1, 7 * 86_400),
      uploadUrlTtlSeconds: parseInteger(read, 'ATTACHMENT_UPLOAD_URL_TTL_SECONDS', 900, 1, 86_400),
      sweepSeconds: parseInteger(read, 'ATTACHMENT_SWEEP_SECONDS', 60, 1, 86_400),
      s3: read('ATTACHMENT_S3_BUCKET')
        ? {
            bucket: read('ATTACHMENT_S3_BUCKET')!,
            endpoint: parseUrl(read, 'ATTACHMENT_S3_ENDPOINT', undefined, ['http:', 'https:']),
            region: parseString(read, 'ATTACHMENT_S3_REGION', 'us-east-1'),
            accessKeyId: read('ATTACHMENT_S3_ACCESS_KEY_ID') || undefined,
            secretAccessKey: read('ATTACHMENT_S3_SECRET_ACCESS_KEY') || undefined,
          }
        : undefined,
    },
    publicUrl: parseUrl(read, 'PUBLIC_URL', undefined, ['http:', 'https:'])?.replace(/\/+$/, ''),
    live: {
      connectionsPerKey: parseInteger(read, 'LIVE_MAX_CONNECTIONS_PER_KEY', 1000, 0, 1_000_000),
      messagesPerSecond: parseInteger(read, 'LIVE_MAX_MESSAGES_PER_SECOND', 200, 0, 100_000),
      messageBytes: parseBytes(read, 'LIVE_MAX_MESSAGE_BYTES', '1mb'),
      bufferedBytes: parseBytes(read, 'LIVE_MAX_BUFFERED_BYTES', '16mb'),
      timeoutMs: parseInteger(read, 'LIVE_TIMEOUT_MS', 30_000, 1000, 600_000),
      presenceTtlSeconds: parseInteger(read, 'LIVE_PRESENCE_TTL_SECONDS', 60, 1, 86_400),
    },
    trustProxy: parseTrustProxy(read, 'TRUST_PROXY'),
    logLevel: parseEnum(read, 'LOG_LEVEL', 'info', LOG_LEVELS),
    shutdownTimeoutMs: parseInteger(read, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    rateLimits: {
      workspaceCreatePerHour: parseInteger(read, 'RATE_LIMIT_WORKSPACE_CREATE', 10, 0),
      loginLinkPerMinute: parseInteger(read, 'RATE_LIMIT_LOGIN_LINK', 5, 0),
      loginLinkPerEmailPerHour: parseInteger(read, 'RATE_LIMIT_LOGIN_LINK_EMAIL', 3, 0),
      loginVerifyPerMinute: parseInteger(read, 'RATE_LIMIT_LOGIN_VERIFY', 30, 0),
      emailStatusPerMinute: parseInteger(read, 'RATE_LIMIT_EMAIL_STATUS', 30, 0),
      workspaceGetPerMinute: parseInteger(read, 'RATE_LIMIT_WORKSPACE_GET', 60, 0),
      apiKeyPerMinute: parseInteger(read, 'RATE_LIMIT_API_KEY', 6000, 0),
      tokenFailuresPerMinute: parseInteger(read, 'RATE_LIMIT_TOKEN_FAILURES', 20, 0),
    },
  };
}
