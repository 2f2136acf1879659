import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';

/** A workspace with its first API key and that key's auth token. */
export interface TestKey {
  workspaceId: string;
  workspaceToken: string;
  ownerEmail: string;
  apiKey: string;
  authToken: string;
  /** Headers of API-key-level operations. */
  headers: Record<string, string>;
  /** Headers of workspace-level operations. */
  workspaceHeaders: Record<string, string>;
}

export function uniqueEmail(prefix = 'owner'): string {
  return `${prefix}.${randomBytes(5).toString('hex')}@example.com`;
}

/** Creates a workspace through the API and fetches its key's auth token, as a new user would. */
export async function createKey(app: TestApp, ownerEmail = uniqueEmail()): Promise<TestKey> {
  const created = await app.post('/v2/workspace/create', { data: { ownerEmail } });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const workspace = created.body.result.data;
  const apiKey = Object.keys(workspace.apiKeyList)[0]!;
  const workspaceHeaders = { 'x-svc-workspace-id': workspace.id, 'x-svc-workspace-auth-token': workspace.authToken };
  const tokens = await app.post('/v2/workspace/authtokens/get', { data: { apiKey } }, workspaceHeaders);
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  const authToken = tokens.body.result.data.authTokens[0].token;
  return {
    workspaceId: workspace.id,
    workspaceToken: workspace.authToken,
    ownerEmail,
    apiKey,
    authToken,
    headers: { 'x-svc-api-key': apiKey, 'x-svc-auth-token': authToken },
    workspaceHeaders,
  };
}

/** Posts as `key` (API-key level). */
export function agentFor(app: TestApp, key: TestKey) {
  return (path: string, data: unknown) => app.post(path, { data }, key.headers);
}

/** Asserts an error envelope with this HTTP status, code and (when given) message. */
export function expectError(response: { status: number; body: unknown }, httpStatus: number, code: string, message?: string | RegExp): void {
  const body = response.body as { error?: { status: string; message: string } };
  assert.equal(response.status, httpStatus, JSON.stringify(response.body));
  assert.ok(body.error, `expected an error envelope, got ${JSON.stringify(response.body)}`);
  assert.equal(body.error.status, code);
  if (typeof message === 'string') assert.equal(body.error.message, message);
  else if (message) assert.match(body.error.message, message);
}

/** Asserts a success envelope and returns its `result`. */
export function expectSuccess(response: { status: number; body: unknown }, message?: string): Record<string, any> {
  const body = response.body as { result?: Record<string, unknown> };
  assert.equal(response.status, 200, JSON.stringify(response.body));
  assert.equal(body.result?.status, 'success', JSON.stringify(response.body));
  if (message !== undefined) assert.equal(body.result?.message, message);
  return body.result!;
}

/** A started app with one workspace key, set up before the suite and closed after it. */
export interface KeyedApp {
  app: TestApp;
  key: TestKey;
  /** Posts as `key` (API-key level). */
  call: (path: string, data: unknown) => ReturnType<TestApp['post']>;
}

/**
 * Registers the suite's set-up and tear-down (call it inside `describe`). The returned object
 * is filled once `before` has run.
 */
export function withKeyedApp(overrides: Record<string, string | undefined> = {}): KeyedApp {
  const context = {} as KeyedApp;
  before(async () => {
    context.app = await startApp(overrides);
    context.key = await createKey(context.app);
    context.call = agentFor(context.app, context.key);
  });
  after(() => context.app.close());
  return context;
}
