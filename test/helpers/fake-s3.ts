import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * A local S3-compatible server for tests: path-style `/<bucket>/<key>` PUT, GET, DELETE and
 * `HEAD /<bucket>`, objects in memory, signatures not checked. `objects` shows what is stored.
 */
export class FakeS3 {
  readonly objects = new Map<string, { body: Buffer; contentType: string }>();
  /** How many of the next PUTs get their connection destroyed before any answer (a reset). */
  resetNextPuts = 0;
  private server: Server | undefined;
  port = 0;

  constructor(readonly bucket: string) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      if (request.method === 'PUT' && this.resetNextPuts > 0) {
        this.resetNextPuts--;
        return void request.socket.destroy();
      }
      void readBody(request).then((body) => {
        const path = decodeURIComponent(new URL(request.url ?? '/', 'http://s3').pathname);
        const [, bucket, ...rest] = path.split('/');
        const key = rest.join('/');
        if (bucket !== this.bucket) return void response.writeHead(404).end(error('NoSuchBucket'));
        if (request.method === 'HEAD' && !key) return void response.writeHead(200).end();
        if (request.method === 'PUT') {
          this.objects.set(key, { body, contentType: String(request.headers['content-type'] ?? '') });
          return void response.writeHead(200, { etag: '"fake"' }).end();
        }
        if (request.method === 'DELETE') {
          this.objects.delete(key);
          return void response.writeHead(204).end();
        }
        const object = this.objects.get(key);
        if (!object) return void response.writeHead(404, { 'content-type': 'application/xml' }).end(error('NoSuchKey'));
        response.writeHead(200, { 'content-type': object.contentType, 'content-length': object.body.length }).end(object.body);
      });
    });
    // Idle connections stay open a minute (Node's default is 5 s), so a pause between tests never
    // meets the server closing one as the client reuses it; the service's answer to that race (an
    // upload sent again) is tested on purpose, with `resetNextPuts`.
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

function error(code: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`;
}
