import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AttachmentsService } from '../src/attachments/attachments.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { FakeS3 } from './helpers/fake-s3.js';
import { agentFor, createKey, expectError, expectSuccess, type TestKey } from './factories/workspace.js';

const ORG = 'org-files';
const ana = { userId: 'ana', name: 'Ana' };

/** Every file under `dir`, recursively (the disk store's blobs and what is still arriving). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * The attachment suite on one blob store: uploads, limits, links, and blobs following their
 * comment, thread, document and writer. `blobs()` answers what the store holds.
 */
function attachmentSuite(name: string, setup: () => Promise<{ env: Record<string, string>; blobs: () => number; stop?: () => Promise<void> }>) {
  describe(`attachments to comments (issue 33), ${name}`, () => {
    let app: TestApp;
    let key: TestKey;
    let call: ReturnType<typeof agentFor>;
    let blobs: () => number;
    let stop: (() => Promise<void>) | undefined;
    before(async () => {
      const store = await setup();
      blobs = store.blobs;
      stop = store.stop;
      app = await startApp({ ATTACHMENT_MAX_BYTES: '64kb', ATTACHMENT_TYPES: 'image/*,text/plain', ATTACHMENT_URL_TTL_SECONDS: '2', ...store.env });
      key = await createKey(app);
      call = agentFor(app, key);
      expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: ORG }] }));
    });
    after(async () => {
      await app.close();
      await stop?.();
    });

    async function thread(documentId: string, annotationId: string, from = ana): Promise<void> {
      expectSuccess(
        await call('/v2/commentannotations/add', {
          organizationId: ORG,
          documentId,
          createDocument: true,
          commentAnnotations: [{ annotationId, commentData: [{ commentText: 'see attached', from }] }],
        }),
      );
    }
    async function upload(fields: Record<string, string>, file: { bytes: Buffer | string; type: string; name?: string } | undefined) {
      const form = new FormData();
      for (const [field, value] of Object.entries(fields)) form.append(field, value);
      if (file) form.append('file', new Blob([file.bytes], { type: file.type }), file.name ?? 'note.txt');
      const response = await fetch(`http://127.0.0.1:${app.port}/v2/commentannotations/comments/attachments/add`, {
        method: 'POST',
        headers: key.headers,
        body: form,
      });
      return { status: response.status, body: (await response.json()) as any };
    }
    const fieldsOf = (documentId: string, annotationId: string, commentId = '1') => ({ organizationId: ORG, documentId, annotationId, commentId });
    const commentAttachments = async (documentId: string, annotationId: string) =>
      (expectSuccess(await call('/v2/commentannotations/comments/get', { organizationId: ORG, documentId, annotationId })).data as any[])[0].attachments;
    const sweep = () => app.app.get(AttachmentsService).sweep();

    it('uploads a file for a comment (multipart), lists it on the comment, and serves it by its link', async () => {
      await thread('doc-a', 't-a');
      const answer = expectSuccess(
        await upload(fieldsOf('doc-a', 't-a'), { bytes: 'hello file', type: 'text/plain', name: 'héllo notes.txt' }),
        'Attachment added successfully.',
      ).data;
      assert.equal(answer.name, 'héllo notes.txt');
      assert.equal(answer.size, 10);
      assert.equal(answer.mimeType, 'text/plain');
      assert.ok(Number.isSafeInteger(answer.attachmentId));
      assert.deepEqual(await commentAttachments('doc-a', 't-a'), [
        { attachmentId: answer.attachmentId, name: 'héllo notes.txt', size: 10, type: 'text/plain', mimeType: 'text/plain' },
      ]);
      const download = await fetch(answer.url);
      assert.equal(download.status, 200);
      assert.equal(await download.text(), 'hello file');
      assert.match(String(download.headers.get('content-disposition')), /^attachment; filename\*=UTF-8''h%C3%A9llo%20notes\.txt$/);
      assert.equal(download.headers.get('content-type')?.split(';')[0], 'text/plain');
      // A fresh link through attachments/get; an unknown id is left out.
      const [again] = expectSuccess(await call('/v2/commentannotations/comments/attachments/get', { attachmentIds: [answer.attachmentId, 12345] })).data;
      assert.equal(again.attachmentId, answer.attachmentId);
      assert.equal(await (await fetch(again.url)).text(), 'hello file');
      assert.equal(blobs(), 1);
    });

    it('refuses a file over ATTACHMENT_MAX_BYTES (413), a type not accepted, a missing comment or field, and no file; leaves nothing behind', async () => {
      await thread('doc-b', 't-b');
      const before = blobs();
      expectError(
        await upload(fieldsOf('doc-b', 't-b'), { bytes: Buffer.alloc(65 * 1024), type: 'image/png' }),
        413,
        'INVALID_ARGUMENT',
        'file exceeds the limit of 65536 bytes.',
      );
      expectError(
        await upload(fieldsOf('doc-b', 't-b'), { bytes: '<script>', type: 'text/html' }),
        400,
        'INVALID_ARGUMENT',
        'file type text/html is not accepted (ATTACHMENT_TYPES).',
      );
      expectError(await upload(fieldsOf('doc-b', 't-b', '7'), { bytes: 'x', type: 'text/plain' }), 404, 'NOT_FOUND', 'Comment not found.');
      expectError(await upload(fieldsOf('doc-b', 'no-thread'), { bytes: 'x', type: 'text/plain' }), 404, 'NOT_FOUND', 'Comment not found.');
      expectError(await upload({ ...fieldsOf('doc-b', 't-b'), commentId: 'one' }, { bytes: 'x', type: 'text/plain' }), 400, 'INVALID_ARGUMENT', /^commentId /);
      expectError(
        await upload({ organizationId: ORG, documentId: 'doc-b', commentId: '1' }, { bytes: 'x', type: 'text/plain' }),
        400,
        'INVALID_ARGUMENT',
        /^annotationId is required/,
      );
      expectError(await upload(fieldsOf('doc-b', 't-b'), undefined), 400, 'INVALID_ARGUMENT', /^file is required/);
      // JSON is not an upload.
      expectError(await call('/v2/commentannotations/comments/attachments/add', fieldsOf('doc-b', 't-b')), 400, 'INVALID_ARGUMENT', /multipart\/form-data/);
      assert.equal(blobs(), before, 'no blob kept for a refused upload');
      assert.deepEqual(await commentAttachments('doc-b', 't-b'), []);
    });

    it('a link stops working after ATTACHMENT_URL_TTL_SECONDS, and a tampered or foreign one never works', async () => {
      await thread('doc-c', 't-c');
      const { url } = expectSuccess(await upload(fieldsOf('doc-c', 't-c'), { bytes: 'secret', type: 'text/plain' })).data;
      const token = new URL(url).searchParams.get('token')!;
      const tampered = url.replace(token, `${token.slice(0, -2)}${token.endsWith('A') ? 'BB' : 'AA'}`);
      const refused = await fetch(tampered);
      assert.equal(refused.status, 403);
      assert.equal(((await refused.json()) as any).error.message, 'This download link is not valid.');
      assert.equal((await fetch(`http://127.0.0.1:${app.port}/v2/attachments/download?token=not-a-token`)).status, 403);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const expired = await fetch(url);
      assert.equal(expired.status, 403);
      assert.equal(((await expired.json()) as any).error.message, 'This download link has expired.');
    });

    it("a blob goes with its comment, its thread, its document and its writer's erasure; links to it stop at once", async () => {
      const links: Record<string, string> = {};
      for (const [documentId, annotationId] of [
        ['doc-d', 't-comment'],
        ['doc-d', 't-thread'],
        ['doc-e', 't-document'],
      ] as const) {
        await thread(documentId, annotationId);
        links[annotationId] = expectSuccess(await upload(fieldsOf(documentId, annotationId), { bytes: annotationId, type: 'text/plain' })).data.url;
      }
      await thread('doc-d', 't-erased', { userId: 'zed', name: 'Zed' });
      links['t-erased'] = expectSuccess(await upload(fieldsOf('doc-d', 't-erased'), { bytes: 'zed', type: 'text/plain' })).data.url;
      const before = blobs();
      expectSuccess(
        await call('/v2/commentannotations/comments/delete', { organizationId: ORG, documentId: 'doc-d', annotationId: 't-comment', commentIds: [1] }),
      );
      expectSuccess(await call('/v2/commentannotations/delete', { organizationId: ORG, documentId: 'doc-d', annotationIds: ['t-thread'] }));
      expectSuccess(await call('/v2/organizations/documents/delete', { organizationId: ORG, documentIds: ['doc-e'] }));
      const { jobId } = expectSuccess(await call('/v2/users/data/delete', { userIds: ['zed'] })).data;
      for (let waited = 0; !expectSuccess(await call('/v2/users/data/delete/status', { jobId })).data.isDeleteCompleted; waited += 50) {
        assert.ok(waited < 10_000, 'erasure did not complete');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      for (const [annotationId, url] of Object.entries(links)) assert.equal((await fetch(url)).status, 404, `${annotationId}: the link still works`);
      await sweep();
      assert.equal(blobs(), before - 4, 'the four blobs are deleted');
      expectSuccess(await call('/v2/commentannotations/comments/attachments/get', { attachmentIds: [1] }));
    });

    it('20 uploads to one comment at once all land; uploads racing the comment delete leave no blob behind', async () => {
      await thread('doc-f', 't-race');
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => upload(fieldsOf('doc-f', 't-race'), { bytes: `file ${i}`, type: 'text/plain' })));
      for (const answer of answers) expectSuccess(answer);
      assert.equal((await commentAttachments('doc-f', 't-race')).length, 20);
      const before = blobs();
      const racing = Promise.all(Array.from({ length: 10 }, (_, i) => upload(fieldsOf('doc-f', 't-race'), { bytes: `late ${i}`, type: 'text/plain' })));
      expectSuccess(
        await call('/v2/commentannotations/comments/delete', { organizationId: ORG, documentId: 'doc-f', annotationId: 't-race', commentIds: [1] }),
      );
      for (const answer of await racing) assert.ok(answer.status === 200 || answer.status === 404, JSON.stringify(answer.body));
      await sweep();
      assert.equal(blobs(), before - 20, 'every blob of the deleted comment is gone, late ones included');
    });
  });
}

attachmentSuite('on local disk', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-files-'));
  return { env: { DATA_DIR: dataDir }, blobs: () => filesUnder(join(dataDir, 'attachments')).length };
});

attachmentSuite('in S3 (a local S3-compatible fake)', async () => {
  const s3 = await new FakeS3('attachments').start();
  return {
    env: {
      ATTACHMENT_S3_BUCKET: 'attachments',
      ATTACHMENT_S3_ENDPOINT: s3.url,
      ATTACHMENT_S3_ACCESS_KEY_ID: 'test',
      ATTACHMENT_S3_SECRET_ACCESS_KEY: 'test-secret',
    },
    blobs: () => s3.objects.size,
    stop: () => s3.stop(),
  };
});
