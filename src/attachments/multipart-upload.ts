import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import busboy from 'busboy';
import { ApiError } from '../common/errors.js';
import { AttachmentErrors } from './attachments.errors.js';

/** A file received into the incoming folder, with the form's fields. */
export interface ReceivedUpload {
  fields: Record<string, string>;
  file: { path: string; name: string; mimeType: string; size: number };
}

/**
 * Reads a multipart/form-data upload with `busboy`: its text fields, and its one part named
 * `file` streamed into `incomingDir` (never held in memory), at most `maxBytes`. A file past the
 * limit is read to the end of the request without being kept (the client gets the 413 once it
 * has sent everything, as a too-large JSON body does) and its partial file deleted.
 */
export async function receiveUpload(request: IncomingMessage, options: { maxBytes: number; incomingDir: string }): Promise<ReceivedUpload> {
  await mkdir(options.incomingDir, { recursive: true });
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: request.headers, defParamCharset: 'utf8', limits: { files: 1, fields: 20, fieldSize: 4096, fileSize: options.maxBytes } });
  } catch {
    request.resume();
    throw AttachmentErrors.notMultipart();
  }
  const fields: Record<string, string> = {};
  let file: ReceivedUpload['file'] | undefined;
  let truncated = false;
  const writes: Promise<void>[] = [];
  parser.on('field', (name, value) => {
    fields[name] = value;
  });
  parser.on('file', (name, stream, info) => {
    if (name !== 'file' || file) return void stream.resume();
    const path = join(options.incomingDir, randomUUID());
    const received = { path, name: info.filename ?? 'file', mimeType: (info.mimeType ?? 'application/octet-stream').toLowerCase(), size: 0 };
    file = received;
    stream.on('data', (chunk: Buffer) => (received.size += chunk.length));
    stream.on('limit', () => (truncated = true));
    writes.push(pipeline(stream, createWriteStream(path)));
  });
  try {
    await pipeline(request, parser);
    await Promise.all(writes);
  } catch (error) {
    if (file) await rm(file.path, { force: true });
    if (error instanceof ApiError) throw error;
    throw AttachmentErrors.multipartUnreadable((error as Error).message);
  }
  if (!file) throw AttachmentErrors.noFile();
  if (truncated) {
    await rm(file.path, { force: true });
    throw AttachmentErrors.tooLarge(options.maxBytes);
  }
  return { fields, file };
}
