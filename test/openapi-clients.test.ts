// @testScope once: the document is built from the controllers' metadata, the same whatever the adapter or engine (the files of /docs, served per adapter, are checked in platform.test.ts).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { startApp, type TestApp } from './helpers/app.js';
import { createKey } from './factories/workspace.js';

const ROOT = new URL('../..', import.meta.url).pathname;

/**
 * A client written against types that `openapi-typescript` generates from the served document:
 * five operations, each request typed by the document and each answer read through its types
 * (the workspace's key and token flow from one answer into the next request).
 */
const CLIENT = `
import type { paths } from './api.js';

type Path = keyof paths;
type Body<P extends Path> = paths[P] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;
type Answer<P extends Path> = paths[P] extends { post: { responses: { 200: { content: { 'application/json': infer A } } } } } ? A : never;

export async function run(base: string, ownerEmail: string): Promise<string[]> {
  async function call<P extends Path>(path: P, body: Body<P>, headers: Record<string, string> = {}): Promise<Answer<P>> {
    const response = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    if (response.status !== 200) throw new Error(path + ' answered ' + response.status + ': ' + (await response.text()));
    return (await response.json()) as Answer<P>;
  }
  const created = await call('/v2/workspace/create', { data: { ownerEmail } });
  const workspace = created.result.data;
  const apiKey: string = Object.keys(workspace.apiKeyList)[0]!;
  const tokens = await call('/v2/workspace/authtokens/get', { data: { apiKey } }, { 'x-svc-workspace-id': workspace.id, 'x-svc-workspace-auth-token': workspace.authToken });
  const headers = { 'x-svc-api-key': apiKey, 'x-svc-auth-token': tokens.result.data.authTokens[0]!.token };
  const organizations = await call('/v2/organizations/add', { data: { organizations: [{ organizationId: 'acme', organizationName: 'Acme' }] } }, headers);
  const added: boolean = organizations.result.data['acme']!.success;
  const documents = await call('/v2/organizations/documents/add', { data: { organizationId: 'acme', documents: [{ documentId: 'spec', documentName: 'Spec' }] } }, headers);
  const read = await call('/v2/organizations/documents/get', { data: { organizationId: 'acme', documentIds: ['spec'] } }, headers);
  const names: string[] = read.result.data.map((document) => document.id + ':' + String(document.documentName));
  return [String(added), String(documents.result.data['spec']!.success), ...names];
}
`;

/** The same client with a request the document forbids (a number where an id string goes). */
const WRONG_CLIENT = `
import type { paths } from './api.js';
type Body = paths['/v2/organizations/add']['post']['requestBody']['content']['application/json'];
export const body: Body = { data: { organizations: [{ organizationId: 42 }] } };
`;

/**
 * A client made with openapi-fetch on the generated types: every path, body and answer is typed
 * by the document, with no types written by hand. A comment thread is started and read back, its
 * comments and mentions typed down to their fields.
 */
const FETCH_CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function run(baseUrl: string, headers: Record<string, string>): Promise<string[]> {
  const client = createClient<paths>({ baseUrl, headers });
  const organizations = await client.POST('/v2/organizations/add', { body: { data: { organizations: [{ organizationId: 'org-fetch', organizationName: 'Fetch' }] } } });
  if (!organizations.data) throw new Error(JSON.stringify(organizations.error));
  const added = await client.POST('/v2/commentannotations/add', {
    body: {
      data: {
        organizationId: 'org-fetch',
        documentId: 'doc-fetch',
        createDocument: true,
        commentAnnotations: [
          {
            annotationId: 'ann-fetch',
            status: { id: 'OPEN', name: 'Open', type: 'default' },
            commentData: [
              {
                commentText: 'Typed all the way down, {{user-bob}}',
                from: { userId: 'user-alice', name: 'Alice' },
                taggedUserContacts: [{ userId: 'user-bob', contact: { userId: 'user-bob', name: 'Bob' } }],
                context: { section: 'intro' },
              },
            ],
          },
        ],
      },
    },
  });
  if (!added.data) throw new Error(JSON.stringify(added.error));
  const outcome: boolean = added.data.result.data['ann-fetch']!.success;
  const read = await client.POST('/v2/commentannotations/get', { body: { data: { organizationId: 'org-fetch', documentId: 'doc-fetch' } } });
  if (!read.data) throw new Error(JSON.stringify(read.error));
  const threads = read.data.result.data;
  if (!Array.isArray(threads) || !threads[0]) throw new Error('no thread');
  const comment = threads[0].comments[0]!;
  const mentioned: string = comment.taggedUserContacts[0]!.userId;
  const status: string = threads[0].status.type;
  const missing = await client.POST('/v2/crdt/state/get', { body: { data: { organizationId: 'org-fetch', documentId: 'doc-fetch', editorId: 'none' } } });
  const code: string | undefined = missing.error?.error.status;
  return [String(outcome), String(comment.commentText), mentioned, status, comment.from.userId, String(code)];
}
`;

/**
 * Clients with typos the document forbids, where comment threads and comments were free-form
 * objects that took any key: a thread's `commentData` misspelt in an openapi-fetch call, and an
 * unknown field in a comment typed by the generated schema. (openapi-fetch infers its `init`
 * generically, so TypeScript flags an unknown key in a call only when a required one is missing
 * too, openapi-ts/openapi-typescript#1769; a value typed by the schema is checked whole.)
 */
const WRONG_FETCH_CLIENT = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';
const client = createClient<paths>({ baseUrl: 'http://127.0.0.1' });
export const thread = client.POST('/v2/commentannotations/add', {
  body: { data: { organizationId: 'o', documentId: 'd', commentAnnotations: [{ annotationId: 'a', commentDta: [{ from: { userId: 'u' } }] }] } },
});
const comment: components['schemas']['CommentInput'] = { from: { userId: 'u' }, commentTxt: 'hello' };
export const reply = client.POST('/v2/commentannotations/comments/add', {
  body: { data: { organizationId: 'o', documentId: 'd', annotationId: 'a', commentData: [comment] } },
});
`;

/**
 * TypeScript's diagnostics for each of `files`, compiled strictly as the project compiles, in one
 * program: the generated types (a few MB) and the DOM's are parsed and checked once for all.
 */
function typeErrors(files: string[]): Map<string, string[]> {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
  });
  // Errors of a root file are its own; any other (the generated types, a library) belongs to every client.
  const byFile = new Map<string, string[]>([...files, '(global)'].map((file) => [file, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file?.fileName;
    byFile.get(file !== undefined && byFile.has(file) ? file : '(global)')!.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  }
  return byFile;
}

describe('the OpenAPI document, as clients and tools use it', () => {
  let app: TestApp;
  let base: string;
  let documentText: string;
  let diagnostics: Map<string, string[]>;
  const folder = mkdtempSync(join(tmpdir(), 'svc-openapi-'));

  before(async () => {
    app = await startApp();
    base = app.url;
    documentText = (await app.get('/docs/openapi.json')).text;
    writeFileSync(join(folder, 'openapi.json'), documentText);
    writeFileSync(join(folder, 'package.json'), '{ "type": "module" }');
    // The project's packages (openapi-fetch), for the compiler and for the compiled clients alike.
    symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'));
    // The types generated from the document, and the four clients checked against them, compiled once.
    writeFileSync(join(folder, 'api.ts'), astToString(await openapiTS(JSON.parse(documentText))));
    const clients = { 'client.ts': CLIENT, 'wrong.ts': WRONG_CLIENT, 'fetch-client.ts': FETCH_CLIENT, 'wrong-fetch.ts': WRONG_FETCH_CLIENT };
    for (const [name, text] of Object.entries(clients)) writeFileSync(join(folder, name), text);
    diagnostics = typeErrors(Object.keys(clients).map((name) => join(folder, name)));
  });
  /** The type errors of one of the clients (and any of the program's that belong to no file). */
  const errorsOf = (name: string) => [...diagnostics.get(join(folder, name))!, ...diagnostics.get('(global)')!];
  after(() => app.close());

  it('states defaults in words: openapi-typescript makes a property with a `default` required', () => {
    const schemas = (JSON.parse(documentText) as { components: { schemas: Record<string, { properties?: Record<string, { default?: unknown }> }> } }).components
      .schemas;
    const withDefault = Object.entries(schemas).flatMap(([name, schema]) =>
      Object.entries(schema.properties ?? {})
        .filter(([, property]) => 'default' in property)
        .map(([field]) => `${name}.${field}`),
    );
    assert.deepEqual(withDefault, []);
  });

  it('generates TypeScript types a typed client compiles against, and that client runs', async () => {
    assert.deepEqual(errorsOf('client.ts'), []);
    // A client the document forbids does not compile: the check above has teeth.
    assert.match(errorsOf('wrong.ts').join('\n'), /Type 'number' is not assignable to type 'string'/);
    // And the typed client works against the service.
    const compiled = ts.transpileModule(CLIENT, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023 } }).outputText;
    writeFileSync(join(folder, 'client.mjs'), compiled);
    const client = (await import(join(folder, 'client.mjs'))) as { run(base: string, email: string): Promise<string[]> };
    assert.deepEqual(await client.run(base, `client.${Date.now()}@example.com`), ['true', 'true', 'spec:Spec']);
  });

  it('types an openapi-fetch client from the document: its calls compile and run, and a misspelt field does not compile', async () => {
    assert.deepEqual(errorsOf('fetch-client.ts'), []);
    const errors = errorsOf('wrong-fetch.ts').join('\n');
    assert.match(errors, /'commentDta' does not exist in type/);
    assert.match(errors, /'commentTxt' does not exist in type/);
    const compiled = ts.transpileModule(FETCH_CLIENT, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023 } }).outputText;
    writeFileSync(join(folder, 'fetch-client.mjs'), compiled);
    const client = (await import(join(folder, 'fetch-client.mjs'))) as { run(base: string, headers: Record<string, string>): Promise<string[]> };
    const key = await createKey(app);
    assert.deepEqual(await client.run(base, key.headers), ['true', 'Typed all the way down, {{user-bob}}', 'user-bob', 'default', 'user-alice', 'NOT_FOUND']);
  });

  it("passes Redocly's recommended lint with no errors", async () => {
    const redocly = join(ROOT, 'node_modules/.bin/redocly');
    const run = await promisify(execFile)(redocly, ['lint', join(folder, 'openapi.json'), '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      cwd: folder,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((failed: { stdout: string; stderr: string }) => failed);
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const errors = report.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
    assert.deepEqual(errors, []);
    assert.equal(report.totals.errors, 0);
  });
});
