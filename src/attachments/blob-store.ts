import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { AppConfig } from '../config/app-config.js';

/**
 * Where attachments' bytes live: a folder under `DATA_DIR` by default, or an S3-compatible
 * bucket (`ATTACHMENT_S3_BUCKET`). Keys are the service's own (random, `[a-z0-9/]`).
 */
export abstract class BlobStore {
  abstract readonly driver: 'disk' | 's3';
  /** Stores a finished upload (a file in `incomingDir`, which it may move) as `key`. */
  abstract put(key: string, file: string, size: number, contentType: string): Promise<void>;
  /** The blob's bytes; undefined when there is no such blob. */
  abstract get(key: string): Promise<Readable | undefined>;
  /** Deletes the blob; nothing when there is none. */
  abstract delete(key: string): Promise<void>;
  /** Throws when the store cannot be reached (`/health`). */
  abstract check(): Promise<void>;
  /** The local folder uploads are written to while they arrive. */
  abstract readonly incomingDir: string;
}

/** Blobs as files under `<DATA_DIR>/attachments`; uploads arrive in its `.incoming` folder and are renamed into place. */
export class DiskBlobStore extends BlobStore {
  readonly driver = 'disk';
  readonly incomingDir: string;

  constructor(private readonly root: string) {
    super();
    this.incomingDir = join(root, '.incoming');
  }

  async put(key: string, file: string): Promise<void> {
    const target = this.path(key);
    await mkdir(join(target, '..'), { recursive: true });
    await rename(file, target);
  }

  async get(key: string): Promise<Readable | undefined> {
    const path = this.path(key);
    try {
      await stat(path);
    } catch {
      return undefined;
    }
    return createReadStream(path);
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async check(): Promise<void> {
    await mkdir(this.incomingDir, { recursive: true });
  }

  private path(key: string): string {
    if (!/^[a-z0-9/]+$/.test(key)) throw new Error(`not a blob key: ${key}`);
    return join(this.root, key);
  }
}

/** The SDK, loaded only when a bucket is configured (it costs a fifth of a second of start-up). */
type S3Sdk = typeof import('@aws-sdk/client-s3');

/** Attempts of one upload to S3, and the wait before the second (each later one waits four times longer). */
const S3_PUT_ATTEMPTS = 3;
const S3_PUT_BACKOFF_MS = 100;

/**
 * Worth another attempt: no HTTP answer at all (a reset or refused connection, a timeout), or
 * the store's own 5xx (S3's `SlowDown` and `InternalError` included). A 4xx is the request's fault.
 */
function isTransient(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return status === undefined || status >= 500;
}

/** Blobs as objects of an S3-compatible bucket, through the official `@aws-sdk/client-s3`. */
export class S3BlobStore extends BlobStore {
  readonly driver = 's3';
  private readonly client: S3Client;

  constructor(
    private readonly sdk: S3Sdk,
    private readonly bucket: string,
    readonly incomingDir: string,
    options: { endpoint?: string; region: string; accessKeyId?: string; secretAccessKey?: string },
  ) {
    super();
    this.client = new sdk.S3Client({
      region: options.region,
      // Checksums only where S3 requires them: the SDK's default trailing checksums (aws-chunked
      // bodies) are not spoken by every S3-compatible store.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
    });
  }

  /**
   * Uploads from the spooled file, retrying transient failures itself: the SDK does not retry a
   * request whose body is a stream (it cannot replay it), so one reset connection (a keep-alive
   * connection the store closed as it was reused) would otherwise lose the upload. Each attempt
   * reads the file afresh.
   */
  async put(key: string, file: string, size: number, contentType: string): Promise<void> {
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.client.send(
            new this.sdk.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: createReadStream(file), ContentLength: size, ContentType: contentType }),
          );
          return;
        } catch (error) {
          if (attempt >= S3_PUT_ATTEMPTS || !isTransient(error)) throw error;
          await delay(S3_PUT_BACKOFF_MS * 4 ** (attempt - 1));
        }
      }
    } finally {
      await rm(file, { force: true });
    }
  }

  async get(key: string): Promise<Readable | undefined> {
    try {
      const object = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return object.Body as Readable;
    } catch (error) {
      if (error instanceof this.sdk.NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async check(): Promise<void> {
    await this.client.send(new this.sdk.HeadBucketCommand({ Bucket: this.bucket }));
  }
}

/** The store `config` names. */
export async function blobStoreFor(config: AppConfig): Promise<BlobStore> {
  const root = join(config.dataDir, 'attachments');
  const s3 = config.attachments.s3;
  if (!s3) return new DiskBlobStore(root);
  return new S3BlobStore(await import('@aws-sdk/client-s3'), s3.bucket, join(root, '.incoming'), s3);
}
