import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withKeyedApp } from './factories/workspace.js';

/** Values of every JSON type and a few edges, each sent where a field expects something else. */
const ODD_VALUES: unknown[] = [null, 0, -1, 1.5, 2 ** 53, '', ' ', 'x', 'y'.repeat(5000), true, [], [null], ['x', 'x'], {}, { nested: { deeper: [1] } }];

interface Schema {
  properties?: Record<string, unknown>;
}

/**
 * Bad input never produces an unexpected 500 (contract 1.1): every operation the OpenAPI
 * document lists gets each of its fields set, one at a time, to values of the wrong type or
 * out of range, and a few malformed bodies. Every answer must be an envelope below 500.
 */
describe('bad input never answers 500, on any operation', () => {
  const keyed = withKeyedApp();

  it('sends odd values to every field of every operation', async () => {
    const document = (await keyed.app.app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/docs/openapi.json' })).json() as {
      paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: { properties: { data: { $ref: string } } } }> } } }>;
      components: { schemas: Record<string, Schema> };
    };
    const headers = { ...keyed.key.headers, ...keyed.key.workspaceHeaders };
    const failures: string[] = [];
    let sent = 0;
    const send = async (path: string, body: unknown) => {
      sent++;
      const response = await keyed.app.post(path, body, headers);
      const envelope = response.body as { result?: unknown; error?: { status?: string } };
      if (response.status >= 500 || !(envelope.result || envelope.error?.status)) failures.push(`${path} ${JSON.stringify(body).slice(0, 120)} → ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
    };
    const operations = Object.entries(document.paths).filter(([, item]) => item.post?.requestBody);
    assert.ok(operations.length >= 60, `${operations.length} operations listed`);
    for (const [path, item] of operations) {
      const reference = item.post!.requestBody!.content['application/json']!.schema.properties.data.$ref;
      const schema = document.components.schemas[reference.split('/').pop()!] ?? {};
      for (const field of Object.keys(schema.properties ?? {})) {
        for (const value of ODD_VALUES) await send(path, { data: { [field]: value } });
      }
      for (const body of [{}, { data: null }, { data: [] }, { data: 'x' }, { data: { unknownField: 1 } }, [], 'x']) await send(path, body);
    }
    assert.ok(sent > 1000, `${sent} requests sent`);
    assert.deepEqual(failures, []);
  });
});
