// @testScope once: the document is built from the controllers' metadata, the same whatever the adapter or engine (the browser test of /docs, served per adapter, is docs-browser.test.ts).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { startApp, type TestApp } from './helpers/app.js';

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

/** TypeScript's diagnostics for `file`, compiled strictly as the project compiles. */
function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describe('the OpenAPI document, as clients and tools use it', () => {
  let app: TestApp;
  let base: string;
  let documentText: string;
  const folder = mkdtempSync(join(tmpdir(), 'svc-openapi-'));

  before(async () => {
    app = await startApp();
    base = app.url;
    documentText = (await app.get('/docs/openapi.json')).text;
    writeFileSync(join(folder, 'openapi.json'), documentText);
    writeFileSync(join(folder, 'package.json'), '{ "type": "module" }');
  });
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
    writeFileSync(join(folder, 'api.ts'), astToString(await openapiTS(JSON.parse(documentText))));
    writeFileSync(join(folder, 'client.ts'), CLIENT);
    assert.deepEqual(typeErrors(join(folder, 'client.ts')), []);
    // A client the document forbids does not compile: the check above has teeth.
    writeFileSync(join(folder, 'wrong.ts'), WRONG_CLIENT);
    assert.match(typeErrors(join(folder, 'wrong.ts')).join('\n'), /Type 'number' is not assignable to type 'string'/);
    // And the typed client works against the service.
    const compiled = ts.transpileModule(CLIENT, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023 } }).outputText;
    writeFileSync(join(folder, 'client.mjs'), compiled);
    const client = (await import(join(folder, 'client.mjs'))) as { run(base: string, email: string): Promise<string[]> };
    assert.deepEqual(await client.run(base, `client.${Date.now()}@example.com`), ['true', 'true', 'spec:Spec']);
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
