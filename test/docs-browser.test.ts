// @testScope adapter: the /docs page is served by each adapter's static files; the database is irrelevant to it.
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

  it('authorizes on /docs in a headless browser and runs "Try it out" on one operation', async (t) => {
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
  });
});
