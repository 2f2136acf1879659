import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { AttachmentErrors } from './attachments.errors.js';

/**
 * Reads a request's raw body (a pre-signed upload's PUT) into a file of `incomingDir`, never
 * held in memory, at most `maxBytes`. Past the limit (or declared past it in Content-Length)
 * nothing more is written and the rest is read without being kept, as a multipart upload's
 * is: the 413 comes once the client has sent everything, so no reset overtakes the answer.
 */
export async function receiveBody(request: IncomingMessage, options: { maxBytes: number; incomingDir: string }): Promise<{ path: string; size: number }> {
  await mkdir(options.incomingDir, { recursive: true });
  const path = join(options.incomingDir, randomUUID());
  let size = 0;
  let over = Number(request.headers['content-length'] ?? 0) > options.maxBytes;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > options.maxBytes) over = true;
      callback(null, over ? undefined : chunk);
    },
  });
  try {
    await pipeline(request, limit, createWriteStream(path));
  } catch (error) {
    await rm(path, { force: true });
    throw AttachmentErrors.bodyUnreadable((error as Error).message);
  }
  if (over) {
    await rm(path, { force: true });
    throw AttachmentErrors.tooLarge(options.maxBytes);
  }
  return { path, size };
}
