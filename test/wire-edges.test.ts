import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { createKey, expectError, type TestKey } from './factories/workspace.js';

/** What came back on a raw connection: status, headers and body as text, and whether it was reset. */
interface RawAnswer {
  status: number;
  head: string;
  body: string;
  reset: boolean;
  /** The connection was reset at any point (while still writing, say), answer or not. */
  errored: boolean;
}

/**
 * Writes `chunks` to the port (a function in the list waits), and reads until the server closes;
 * with `readLast`, reads only once everything is written, as a client busy sending does.
 */
function exchange(port: number, chunks: (string | Buffer | (() => Promise<void>))[], timeoutMs = 15_000, readLast = false): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let reset = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer in time'));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body, reset: reset && !text, errored: reset });
    });
    if (readLast) socket.pause();
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (typeof chunk === 'function') await chunk();
        else if (!socket.destroyed) socket.write(chunk);
      }
      if (readLast) setTimeout(() => socket.resume(), 200);
    });
  });
}

const wait = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('the wire contract at the HTTP layer', () => {
  let app: TestApp;
  let key: TestKey;
  let port: number;
  before(async () => {
    app = await startApp({ BODY_LIMIT: '4kb' });
    key = await createKey(app);
    port = app.port;
  });
  after(() => app.close());

  const envelope = (answer: RawAnswer) => JSON.parse(answer.body) as { error: { status: string; message: string } };
  const headersOf = (extra: Record<string, string>) =>
    Object.entries(extra)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');

  it('prototype keys anywhere in data are refused with their path (the validation pipe relies on it)', async () => {
    const activity = {
      featureType: 'comment',
      actionType: 'comment.add',
      actionUser: { userId: 'u1' },
      entityData: JSON.parse('{"x": {"__proto__": {"polluted": true}}}') as object,
    };
    expectError(
      await app.post('/v2/activities/add', { data: { organizationId: 'o', documentId: 'd', activities: [activity] } }, key.headers),
      400,
      'INVALID_ARGUMENT',
      'data.activities[0].entityData.x.__proto__: the key __proto__ is not allowed',
    );
    const thread = { commentData: [{ commentText: 'hi', from: { userId: 'u1', constructor: { prototype: { polluted: true } } } }] };
    expectError(
      await app.post('/v2/commentannotations/add', { data: { organizationId: 'o', documentId: 'd', commentAnnotations: [thread] } }, key.headers),
      400,
      'INVALID_ARGUMENT',
      'data.commentAnnotations[0].commentData[0].from.constructor: the key constructor is not allowed',
    );
  });

  it("a body that is not JSON: 400 INVALID_ARGUMENT, the contract's message, with an issue saying it did not parse, whatever the content type or framing", async () => {
    const body = '{"data": {"domains": [}';
    let parserSays = '';
    try {
      JSON.parse(body);
    } catch (error) {
      parserSays = (error as Error).message;
    }
    const refusal = {
      status: 'INVALID_ARGUMENT',
      message: 'Request body must be a JSON object with a "data" object.',
      details: { issues: [{ path: 'body', message: `Request body is not valid JSON: ${parserSays}.` }] },
    };
    const post = (path: string, headers: string, payload: string) =>
      exchange(port, [`POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headers}\r\n`, payload]);
    for (const contentType of ['Content-Type: application/json\r\n', 'Content-Type: text/plain\r\n', 'Content-Type: x\r\n', '']) {
      const answer = await post('/v2/workspace/domains/get', `${contentType}${headersOf(key.headers)}Content-Length: ${body.length}\r\n`, body);
      assert.equal(answer.status, 400, `${contentType}: ${answer.head}`);
      assert.deepEqual(envelope(answer).error, refusal, contentType);
    }
    const chunked = await post(
      '/v2/workspace/domains/get',
      `Content-Type: application/json\r\n${headersOf(key.headers)}Transfer-Encoding: chunked\r\n`,
      `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    assert.deepEqual([chunked.status, envelope(chunked).error], [400, refusal]);
    // A public operation too; a body that parses but has no data object has the message alone.
    const open = await post('/v2/workspace/create', `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`, body);
    assert.deepEqual([open.status, envelope(open).error], [400, refusal]);
    const shapeless = await post('/v2/workspace/domains/get', `Content-Type: application/json\r\n${headersOf(key.headers)}Content-Length: 2\r\n`, '[]');
    assert.deepEqual(envelope(shapeless).error, { status: 'INVALID_ARGUMENT', message: 'Request body must be a JSON object with a "data" object.' });
  });

  it('headers too large: 431 with the error envelope', async () => {
    const answer = await exchange(port, [`POST /v2/organizations/get HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    assert.equal(answer.status, 431);
    assert.deepEqual(envelope(answer).error, { status: 'INVALID_ARGUMENT', message: 'The request headers are too large.' });
  });

  it('bytes that are not HTTP: 400 with the error envelope', async () => {
    const answer = await exchange(port, ['NOT HTTP AT ALL\r\n\r\n']);
    assert.equal(answer.status, 400);
    assert.equal(envelope(answer).error.status, 'INVALID_ARGUMENT');
  });

  it('a body far over the limit is answered 413 with the envelope, not reset', async () => {
    const body = JSON.stringify({ data: { organizationIds: ['x'.repeat(64 * 1024)] } });
    const head = `POST /v2/organizations/get HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n${headersOf(key.headers)}Content-Length: ${body.length}\r\n\r\n`;
    const answer = await exchange(port, [head, body]);
    assert.equal(answer.status, 413, answer.head);
    assert.deepEqual(envelope(answer).error, { status: 'INVALID_ARGUMENT', message: 'Request body exceeds the limit of 4096 bytes.' });
  });

  it('a body far over the limit that is still arriving when it is judged gets 413, not a reset', async () => {
    // Judged past four times the limit: the answer came at once and the connection closed while
    // the client still sent, so its next bytes met a closed socket and the kernel reset the
    // connection, discarding the answer (seen under parallel load with 10 MB bodies).
    const total = 20 * 4096;
    const head = `POST /v2/organizations/get HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n${headersOf(key.headers)}Content-Length: ${total}\r\n\r\n`;
    const rest = Array.from({ length: 15 }, () => [wait(20), Buffer.alloc(4096, 'x')]).flat();
    const answer = await exchange(port, [head, Buffer.alloc(5 * 4096, 'x'), wait(300), ...rest], 15_000, true);
    // A client such as Node's http or fetch fails the request when its write meets a reset.
    assert.equal(answer.errored, false, 'the connection was reset while the client sent');
    assert.equal(answer.status, 413, answer.head);
    assert.deepEqual(envelope(answer).error, { status: 'INVALID_ARGUMENT', message: 'Request body exceeds the limit of 4096 bytes.' });
  });

  it('a slow body without credentials is answered 408 within seconds', async () => {
    const started = Date.now();
    const head = `POST /v2/workspace/create HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const answer = await exchange(port, [head, '{"data":', wait(8000), '{}}']);
    assert.equal(answer.status, 408, answer.head);
    assert.equal(envelope(answer).error.message, 'The request body did not arrive in time.');
    assert.ok(Date.now() - started < 7000, `answered after ${Date.now() - started} ms`);
  });
});
