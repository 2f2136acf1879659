// @testScope once: Swagger UI's page in a browser, on the first combination chosen (SQLite with Fastify by default) to keep CI short: it runs in the browser alone, and every file it loads is checked over HTTP on each adapter (platform.test.ts), as is every operation it calls.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { launchChromium } from './helpers/browser.js';
import { createKey, type TestKey } from './factories/workspace.js';

describe('the API docs page in a browser', () => {
  let app: TestApp;
  let key: TestKey;
  let base: string;

  before(async () => {
    app = await startApp();
    base = app.url;
    key = await createKey(app);
  });
  after(() => app.close());

  it('authorizes on /docs in a headless browser and runs "Try it out": one operation, then the examples of a few in document order', async (t) => {
    const document = JSON.parse((await app.get('/docs/openapi.json')).text) as {
      paths: Record<string, { post?: { operationId: string; requestBody?: { content: Record<string, { example?: unknown }> } } }>;
    };
    const browser = await launchChromium();
    t.after(() => browser.close());
    const page = await browser.newPage();
    await page.goto(`${base}/docs`);
    await page
      .getByRole('button', { name: /Authorize/ })
      .first()
      .click();
    const dialog = page.locator('.modal-ux');
    for (const [scheme, value] of [
      ['apiKey', key.apiKey],
      ['authToken', key.authToken],
    ] as const) {
      const section = dialog.locator('.auth-container').filter({ has: page.locator('h4 code').getByText(scheme, { exact: true }) });
      await section.locator('input').fill(value);
      await section.locator('button.authorize').click();
    }
    await dialog.locator('button.btn-done').first().click();
    // Tags open collapsed; every tag renders its operations once opened.
    for (const tag of ['workspace', 'comments', 'live']) await page.locator(`#operations-tag-${tag}`).click();
    assert.ok((await page.locator('#operations-comments-v2_commentannotations_comments_attachments_add').count()) === 1, 'the comments tag renders whole');
    const operation = page.locator('#operations-workspace-v2_workspace_domains_get');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.locator('textarea.body-param__text').fill('{ "data": {} }');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const answer = operation.locator('.live-responses-table .response');
    await answer.first().waitFor();
    assert.equal((await answer.locator('.response-col_status').first().innerText()).trim(), '200');
    assert.match(await answer.locator('.microlight').first().innerText(), /"status": "success"/);

    // The document's own examples, unedited, in its order: each builds on what the previous created (org-acme, folder-planning, doc-roadmap, users, a thread).
    const examples: [tag: string, path: string][] = [
      ['organizations', '/v2/organizations/add'],
      ['folders', '/v2/organizations/folders/add'],
      ['documents', '/v2/organizations/documents/add'],
      ['users', '/v2/users/add'],
      ['comments', '/v2/commentannotations/add'],
      ['comments', '/v2/commentannotations/get'],
    ];
    assert.deepEqual(
      examples.map(([, path]) => path),
      Object.keys(document.paths).filter((path) => examples.some(([, listed]) => listed === path)),
      'listed in document order',
    );
    for (const tag of new Set(examples.map(([tag]) => tag))) if (tag !== 'comments') await page.locator(`#operations-tag-${tag}`).click();
    for (const [tag, path] of examples) {
      const { operationId, requestBody } = document.paths[path]!.post!;
      const block = page.locator(`#operations-${tag}-${operationId}`);
      await block.locator('.opblock-summary').click();
      await block.getByRole('button', { name: 'Try it out' }).click();
      // Try it out offers the example as the body, untouched.
      assert.deepEqual(JSON.parse(await block.locator('textarea.body-param__text').inputValue()), requestBody!.content['application/json']!.example, path);
      await block.getByRole('button', { name: 'Execute' }).click();
      const response = block.locator('.live-responses-table .response');
      await response.first().waitFor();
      const text = await response.locator('.microlight').first().innerText();
      assert.equal((await response.locator('.response-col_status').first().innerText()).trim(), '200', `${path}: ${text}`);
      assert.match(text, /"status": "success"/, path);
      const answered = JSON.stringify(JSON.parse(text));
      assert.doesNotMatch(answered, /"success":false|\[null|,null[,\]]/, `${path} succeeded only in part: ${answered}`);
    }
  });
});
