import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AttachmentsService } from '../src/attachments/attachments.service.js';
import { AppConfig } from '../src/config/app-config.js';
import { Sql } from '../src/database/sql.js';
import { ManualClock, startApp, type TestApp } from './helpers/app.js';
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
interface BlobStoreUnderTest {
  env: Record<string, string>;
  blobs: () => number;
  stop?: () => Promise<void>;
}

/** `resetNextUploads`: makes the store drop the connection of its next `count` uploads (S3 only). */
function attachmentSuite(name: string, setup: () => Promise<BlobStoreUnderTest>, { resetNextUploads }: { resetNextUploads?: (count: number) => void } = {}) {
  describe(`attachments to comments (issue 33), ${name}`, () => {
    let app: TestApp;
    let key: TestKey;
    let call: ReturnType<typeof agentFor>;
    let blobs: () => number;
    let stop: (() => Promise<void>) | undefined;
    // Links and upload URLs expire by the service's clock: the tests move it instead of waiting.
    let clock: ManualClock;
    before(async () => {
      clock = new ManualClock();
      const store = await setup();
      blobs = store.blobs;
      stop = store.stop;
      app = await startApp(
        {
          ATTACHMENT_MAX_BYTES: '64kb',
          ATTACHMENT_TYPES: 'image/*,text/plain',
          ATTACHMENT_URL_TTL_SECONDS: '5',
          ATTACHMENT_UPLOAD_URL_TTL_SECONDS: '2',
          ...store.env,
        },
        { clock },
      );
      key = await createKey(app);
      call = agentFor(app, key);
      expectSuccess(await call('/v2/organizations/add', { organizations: [{ organizationId: ORG }] }));
    });
    after(async () => {
      await app.close();
      await stop?.();
    });

    async function thread(documentId: string, annotationId: string, from = ana, as = call): Promise<void> {
      expectSuccess(
        await as('/v2/commentannotations/add', {
          organizationId: ORG,
          documentId,
          createDocument: true,
          commentAnnotations: [{ annotationId, commentData: [{ commentText: 'see attached', from }] }],
        }),
      );
    }
    async function upload(fields: Record<string, string>, file: { bytes: Buffer | string; type: string; name?: string } | undefined, as = key) {
      const form = new FormData();
      for (const [field, value] of Object.entries(fields)) form.append(field, value);
      if (file) form.append('file', new Blob([file.bytes], { type: file.type }), file.name ?? 'note.txt');
      const response = await fetch(`http://127.0.0.1:${app.port}/v2/commentannotations/comments/attachments/add`, {
        method: 'POST',
        headers: as.headers,
        body: form,
      });
      return { status: response.status, body: (await response.json()) as any };
    }
    const fieldsOf = (documentId: string, annotationId: string, commentId = '1') => ({ organizationId: ORG, documentId, annotationId, commentId });
    const commentAttachments = async (documentId: string, annotationId: string) =>
      (expectSuccess(await call('/v2/commentannotations/comments/get', { organizationId: ORG, documentId, annotationId })).data as any[])[0].attachments;
    const sweep = () => app.app.get(AttachmentsService).sweep();
    const filesUnderIncoming = () => filesUnder(join(app.app.get(AppConfig).dataDir, 'attachments', '.incoming')).length;
    /** The key's attachment rows (not the table's: on PostgreSQL the files running beside this one share the database). */
    const rows = async () =>
      Number(
        (
          await app.app
            .get(Sql)
            .rows<{ count: number | string }>('SELECT COUNT(*) AS count FROM attachment WHERE api_key_id = :apiKeyId', { apiKeyId: key.apiKey })
        )[0]!.count,
      );
    /** PUTs raw bytes to a pre-signed upload URL. */
    async function put(url: string, bytes: Buffer | string, contentType?: string) {
      const response = await fetch(url, { method: 'PUT', body: bytes, headers: contentType ? { 'content-type': contentType } : {} });
      return { status: response.status, body: (await response.json()) as any };
    }
    const presign = (documentId: string, annotationId: string, file: { name?: string; mimeType?: string; size?: number } = {}, as = call) =>
      as('/v2/commentannotations/comments/attachments/presign', {
        ...fieldsOf(documentId, annotationId),
        commentId: 1,
        name: file.name ?? 'big.txt',
        mimeType: file.mimeType ?? 'text/plain',
        ...(file.size !== undefined ? { size: file.size } : {}),
      });

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

    if (resetNextUploads) {
      it('an upload whose connection to the store is reset is sent again (twice at most), from the spooled file', async () => {
        await thread('doc-reset', 't-reset');
        resetNextUploads(2);
        const answer = expectSuccess(await upload(fieldsOf('doc-reset', 't-reset'), { bytes: 'sent on the third try', type: 'text/plain' })).data;
        assert.equal(await (await fetch(answer.url)).text(), 'sent on the third try');
        // Three resets are more than it retries: the upload fails as unavailable and leaves nothing behind.
        const before = blobs();
        resetNextUploads(3);
        expectError(await upload(fieldsOf('doc-reset', 't-reset'), { bytes: 'lost', type: 'text/plain' }), 503, 'UNAVAILABLE');
        assert.equal(blobs(), before);
        assert.equal((await commentAttachments('doc-reset', 't-reset')).length, 1);
        assert.equal(filesUnderIncoming(), 0);
      });
    }

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
      clock.advance(4900);
      assert.equal((await fetch(url)).status, 200, 'still valid just before ATTACHMENT_URL_TTL_SECONDS');
      clock.advance(200);
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

    it("a key's own limits (apikeyconfig attachmentConfig) narrow the service's: a key refuses what another accepts", async () => {
      const strict = await createKey(app);
      const strictCall = agentFor(app, strict);
      expectSuccess(await strictCall('/v2/organizations/add', { organizations: [{ organizationId: ORG }] }));
      const initial = expectSuccess(await strictCall('/v2/workspace/apikeyconfig/get', {})).data.attachmentConfig;
      assert.deepEqual(initial, { maxBytes: 65536, types: ['image/*', 'text/plain'], isCustom: false });
      // Wider than the service is refused, naming the field.
      expectError(
        await strictCall('/v2/workspace/apikeyconfig/update', { attachmentConfig: { maxBytes: 65537 } }),
        400,
        'INVALID_ARGUMENT',
        'data.attachmentConfig.maxBytes must be at most 65536 (ATTACHMENT_MAX_BYTES).',
      );
      expectError(
        await strictCall('/v2/workspace/apikeyconfig/update', { attachmentConfig: { types: ['text/plain', 'text/html'] } }),
        400,
        'INVALID_ARGUMENT',
        'data.attachmentConfig.types[1] text/html is not accepted by the service (ATTACHMENT_TYPES).',
      );
      expectError(
        await strictCall('/v2/workspace/apikeyconfig/update', { attachmentConfig: { types: ['text'] } }),
        400,
        'INVALID_ARGUMENT',
        /^data\.attachmentConfig\.types\[0\] must be a MIME type/,
      );
      expectError(
        await strictCall('/v2/workspace/apikeyconfig/update', { attachmentConfig: { maxBytes: 0 } }),
        400,
        'INVALID_ARGUMENT',
        /^data\.attachmentConfig\.maxBytes /,
      );
      expectError(await strictCall('/v2/workspace/apikeyconfig/update', { attachmentConfig: { other: 1 } }), 400, 'INVALID_ARGUMENT', /other/);
      expectError(
        await strictCall('/v2/workspace/apikeyconfig/update', { attachmentConfig: {} }),
        400,
        'INVALID_ARGUMENT',
        'At least one field must be provided for update',
      );
      const echo = expectSuccess(await strictCall('/v2/workspace/apikeyconfig/update', { attachmentConfig: { maxBytes: 1024, types: ['Text/Plain'] } })).data;
      assert.deepEqual(echo, { attachmentConfig: { maxBytes: 1024, types: ['text/plain'], isCustom: true } });

      await thread('doc-k', 't-k', ana, strictCall);
      await thread('doc-k', 't-k');
      const big = { bytes: Buffer.alloc(2048, 'x'), type: 'text/plain' };
      const png = { bytes: 'png', type: 'image/png', name: 'p.png' };
      expectSuccess(await upload(fieldsOf('doc-k', 't-k'), big));
      expectSuccess(await upload(fieldsOf('doc-k', 't-k'), png));
      expectError(await upload(fieldsOf('doc-k', 't-k'), big, strict), 413, 'INVALID_ARGUMENT', 'file exceeds the limit of 1024 bytes.');
      expectError(
        await upload(fieldsOf('doc-k', 't-k'), png, strict),
        400,
        'INVALID_ARGUMENT',
        'file type image/png is not accepted (attachmentConfig.types).',
      );
      expectSuccess(await upload(fieldsOf('doc-k', 't-k'), { bytes: 'small', type: 'text/plain' }, strict));
      // Pre-signed uploads get the same limits.
      expectError(await presign('doc-k', 't-k', { size: 2048 }, strictCall), 413, 'INVALID_ARGUMENT', 'file exceeds the limit of 1024 bytes.');
      expectError(
        await presign('doc-k', 't-k', { mimeType: 'image/png' }, strictCall),
        400,
        'INVALID_ARGUMENT',
        'file type image/png is not accepted (attachmentConfig.types).',
      );
      const { uploadUrl, maxBytes } = expectSuccess(await presign('doc-k', 't-k', {}, strictCall)).data;
      assert.equal(maxBytes, 1024);
      expectError(await put(uploadUrl, big.bytes), 413, 'INVALID_ARGUMENT', 'file exceeds the limit of 1024 bytes.');
      // null takes a limit back to the service's.
      expectSuccess(await strictCall('/v2/workspace/apikeyconfig/update', { attachmentConfig: { maxBytes: null } }));
      assert.deepEqual(expectSuccess(await strictCall('/v2/workspace/apikeyconfig/get', {})).data.attachmentConfig, {
        maxBytes: 65536,
        types: ['text/plain'],
        isCustom: true,
      });
      expectSuccess(await upload(fieldsOf('doc-k', 't-k'), big, strict));
    });

    it('a pre-signed upload: PUT the bytes to the URL (streamed), the comment lists the file, it downloads; the URL works once', async () => {
      await thread('doc-p', 't-p');
      const before = blobs();
      const answer = expectSuccess(
        await presign('doc-p', 't-p', { name: 'grand rapport.txt', mimeType: 'text/plain', size: 40_000 }),
        'Upload URL created successfully.',
      ).data;
      assert.equal(answer.method, 'PUT');
      assert.equal(answer.maxBytes, 65536);
      assert.equal(Date.parse(answer.expiresAt), clock.now() + 2000, 'ATTACHMENT_UPLOAD_URL_TTL_SECONDS from now');
      const bytes = Buffer.alloc(40_000, 'y');
      // The content type sent does not matter (not JSON-parsed, not the stored type).
      const added = expectSuccess(await put(answer.uploadUrl, bytes, 'application/json'), 'Attachment added successfully.').data;
      assert.equal(added.name, 'grand rapport.txt');
      assert.equal(added.size, 40_000);
      assert.equal(added.mimeType, 'text/plain');
      assert.deepEqual(await commentAttachments('doc-p', 't-p'), [
        { attachmentId: added.attachmentId, name: 'grand rapport.txt', size: 40_000, type: 'text/plain', mimeType: 'text/plain' },
      ]);
      const download = await fetch(added.url);
      assert.equal(download.status, 200);
      assert.ok(Buffer.from(await download.arrayBuffer()).equals(bytes));
      expectError(await put(answer.uploadUrl, 'again'), 409, 'ALREADY_EXISTS', 'This upload URL has already been used.');
      // Without a content type at all, and empty.
      const empty = expectSuccess(await presign('doc-p', 't-p')).data;
      assert.equal(expectSuccess(await put(empty.uploadUrl, '')).data.size, 0);
      assert.equal(blobs(), before + 2, 'one blob per upload, none for the refused second PUT');
      assert.equal((await commentAttachments('doc-p', 't-p')).length, 2);
      // The comment must exist when the URL is asked for; bad input names its field.
      expectError(
        await call('/v2/commentannotations/comments/attachments/presign', { ...fieldsOf('doc-p', 't-p'), commentId: 9, name: 'x', mimeType: 'text/plain' }),
        404,
        'NOT_FOUND',
        'Comment not found.',
      );
      expectError(
        await call('/v2/commentannotations/comments/attachments/presign', { ...fieldsOf('doc-p', 't-p'), commentId: 1, name: 'x', mimeType: 'nope' }),
        400,
        'INVALID_ARGUMENT',
        /^data\.mimeType /,
      );
      expectError(
        await call('/v2/commentannotations/comments/attachments/presign', { ...fieldsOf('doc-p', 't-p'), commentId: '1', name: 'x', mimeType: 'text/plain' }),
        400,
        'INVALID_ARGUMENT',
        /^data\.commentId /,
      );
      expectError(await presign('doc-p', 't-p', { mimeType: 'text/html' }), 400, 'INVALID_ARGUMENT', 'file type text/html is not accepted (ATTACHMENT_TYPES).');
    });

    it('a pre-signed upload over the limit is refused (413) with nothing kept; a tampered, foreign or expired URL is refused', async () => {
      await thread('doc-q', 't-q');
      const before = { blobs: blobs(), rows: await rows() };
      const { uploadUrl } = expectSuccess(await presign('doc-q', 't-q')).data;
      expectError(await put(uploadUrl, Buffer.alloc(65 * 1024)), 413, 'INVALID_ARGUMENT', 'file exceeds the limit of 65536 bytes.');
      const token = new URL(uploadUrl).searchParams.get('token')!;
      const tampered = uploadUrl.replace(token, `${token.slice(0, -2)}${token.endsWith('A') ? 'BB' : 'AA'}`);
      expectError(await put(tampered, 'x'), 403, 'PERMISSION_DENIED', 'This upload URL is not valid.');
      // A download link's token opens no upload.
      const { url } = expectSuccess(await upload(fieldsOf('doc-q', 't-q'), { bytes: 'd', type: 'text/plain' })).data;
      const downloadToken = new URL(url).searchParams.get('token')!;
      expectError(await put(uploadUrl.replace(token, downloadToken), 'x'), 403, 'PERMISSION_DENIED', 'This upload URL is not valid.');
      expectError(await put(uploadUrl.replace(token, ''), 'x'), 403, 'PERMISSION_DENIED', 'This upload URL is not valid.');
      clock.advance(2100);
      expectError(await put(uploadUrl, 'late'), 403, 'PERMISSION_DENIED', 'This upload URL has expired.');
      assert.equal(blobs(), before.blobs + 1, 'only the multipart upload is kept');
      assert.equal(await rows(), before.rows + 1);
      assert.equal(filesUnderIncoming(), 0, 'no partial file left in the incoming folder');
    });

    it('pre-signed uploads racing the comment delete leave no blob and no row behind', async () => {
      await thread('doc-r', 't-r');
      const urls = await Promise.all(Array.from({ length: 10 }, async () => expectSuccess(await presign('doc-r', 't-r')).data.uploadUrl as string));
      const before = { blobs: blobs(), rows: await rows() };
      const racing = Promise.all(urls.map((url, i) => put(url, `racing ${i}`.repeat(500))));
      expectSuccess(await call('/v2/commentannotations/comments/delete', { organizationId: ORG, documentId: 'doc-r', annotationId: 't-r', commentIds: [1] }));
      for (const answer of await racing) assert.ok(answer.status === 200 || answer.status === 404, JSON.stringify(answer.body));
      await sweep();
      assert.equal(blobs(), before.blobs, 'every blob of the deleted comment is gone');
      assert.equal(await rows(), before.rows, 'every row of the deleted comment is gone');
      assert.equal(filesUnderIncoming(), 0);
    });

    it("users/data/get lists the user's threads, reactions and attachments (as links); users/data/delete erases them, blobs included", async () => {
      const zoe = { userId: 'zoe', name: 'Zoe' };
      await thread('doc-u', 't-zoe', zoe);
      await thread('doc-u', 't-ana');
      expectSuccess(await call('/v2/commentannotations/comments/reactions/add', { ...fieldsOf('doc-u', 't-ana'), commentId: 1, icon: '👍', from: zoe }));
      const file = expectSuccess(await upload(fieldsOf('doc-u', 't-zoe'), { bytes: 'zoe file', type: 'text/plain', name: 'zoe.txt' })).data;
      // Ana's file on Ana's comment is not Zoe's.
      expectSuccess(await upload(fieldsOf('doc-u', 't-ana'), { bytes: 'ana file', type: 'text/plain' }));
      const exported = expectSuccess(await call('/v2/users/data/get', { organizationId: ORG, userId: 'zoe' }), 'Data fetched successfully.').data;
      assert.deepEqual(
        exported.comments.map((t: { annotationId: string }) => t.annotationId),
        ['t-ana', 't-zoe'],
        'the thread she wrote, and the one she reacted in',
      );
      assert.deepEqual(
        exported.reactions.map((r: any) => [r.documentId, r.commentAnnotationId, r.commentId, r.icon, r.from.userId]),
        [['doc-u', 't-ana', 1, '👍', 'zoe']],
      );
      assert.equal(exported.attachments.length, 1);
      const [link] = exported.attachments;
      assert.deepEqual(
        [link.organizationId, link.documentId, link.annotationId, link.commentId, link.attachmentId, link.name, link.size, link.mimeType],
        [ORG, 'doc-u', 't-zoe', 1, file.attachmentId, 'zoe.txt', 8, 'text/plain'],
      );
      assert.equal(await (await fetch(link.url)).text(), 'zoe file');
      const before = blobs();
      const { jobId } = expectSuccess(await call('/v2/users/data/delete', { userIds: ['zoe'] })).data;
      for (let waited = 0; !expectSuccess(await call('/v2/users/data/delete/status', { jobId })).data.isDeleteCompleted; waited += 50) {
        assert.ok(waited < 10_000, 'erasure did not complete');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(blobs(), before - 1, 'her blob is deleted by the job itself, before any sweep');
      assert.equal((await fetch(link.url)).status, 404);
      const gone = expectSuccess(await call('/v2/users/data/get', { organizationId: ORG, userId: 'zoe' })).data;
      assert.deepEqual([gone.comments, gone.reactions, gone.attachments], [[], [], []]);
      assert.equal((await commentAttachments('doc-u', 't-ana')).length, 1, "Ana's file stays");
    });
  });
}

attachmentSuite('on local disk', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-files-'));
  return { env: { DATA_DIR: dataDir }, blobs: () => filesUnder(join(dataDir, 'attachments')).length };
});

const s3 = new FakeS3('attachments');
attachmentSuite(
  'in S3 (a local S3-compatible fake)',
  async () => {
    await s3.start();
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
  },
  { resetNextUploads: (count) => (s3.resetNextPuts = count) },
);
