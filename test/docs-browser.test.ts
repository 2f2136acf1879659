// @testScope adapter: the /docs page is served by each adapter's static files; the database is irrelevant to it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { launchChromium } from './helpers/browser.js';
import { EXAMPLE_FILE, type ExampleDocument, type ExampleTransport, mailedToken, runExamplesInOrder } from './helpers/openapi-example-run.js';
import { SmtpReceiver } from './helpers/smtp-receiver.js';
import { createKey, type TestKey } from './factories/workspace.js';

describe('the API docs page in a browser', () => {
  let app: TestApp;
  let smtp: SmtpReceiver;
  let key: TestKey;
  let base: string;

  before(async () => {
    smtp = await new SmtpReceiver().start();
    app = await startApp({ SMTP_URL: smtp.url });
    base = app.url;
    key = await createKey(app);
  });
  after(async () => {
    await app.close();
    await smtp.stop();
  });

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

  it('runs every example of the document through Swagger UI, in document order on a fresh key: each a whole success', async (t) => {
    const fresh = await createKey(app);
    const openapi = JSON.parse((await app.get('/docs/openapi.json')).text) as ExampleDocument;
    const browser = await launchChromium();
    t.after(() => browser.close());
    const page = await browser.newPage();
    await page.goto(`${base}/docs`);
    // The page's globals: Swagger UI's `ui` and the DOM (this file is typed for Node).
    await page.waitForFunction(() => (globalThis as any).ui !== undefined && (globalThis as any).document.querySelector('.opblock-tag') !== null);
    // Swagger UI's own authorization (what the Authorize dialog stores, tried by hand above).
    const authorize = (scheme: string, value: string) =>
      page.evaluate(([name, token]) => (globalThis as any).ui.preauthorizeApiKey(name, token), [scheme, value] as const);
    for (const [scheme, value] of Object.entries({
      apiKey: fresh.apiKey,
      authToken: fresh.authToken,
      workspaceId: fresh.workspaceId,
      workspaceAuthToken: fresh.workspaceToken,
    }))
      await authorize(scheme, value);
    // Each request as "Try it out" makes it: the body put into the operation's editor
    // (`setRequestBodyValue`, a multipart form's fields and file likewise), then what Execute
    // calls (`specActions.execute`): Swagger UI builds the request from the document and its
    // authorizations and sends it from the page; the answer is the one it shows.
    const throughSwaggerUi: ExampleTransport = {
      async send({ path, method, json, multipart }) {
        return page.evaluate(
          async ({ path, method, json, multipart, file }) => {
            const ui = (globalThis as any).ui;
            const pathMethod = [path, method];
            if (json) {
              ui.oas3Actions.setRequestContentType({ value: 'application/json', pathMethod });
              ui.oas3Actions.setRequestBodyValue({ value: JSON.stringify(json, null, 2), pathMethod });
            } else if (multipart) {
              const form: Record<string, unknown> = { ...multipart.fields };
              if (multipart.fileField) form[multipart.fileField] = new File([file.text], file.name, { type: file.type });
              ui.oas3Actions.setRequestContentType({ value: 'multipart/form-data', pathMethod });
              ui.oas3Actions.setRequestBodyValue({ value: ui.Im.Map(form), pathMethod });
            }
            const operation = ui.specSelectors.specJson().getIn(['paths', path, method]);
            await ui.specActions.execute({ path, method, operation });
            const response = ui.specSelectors.responseFor(path, method);
            const text = String(response.get('text') ?? '');
            let body: unknown;
            try {
              body = JSON.parse(text);
            } catch {
              body = { text };
            }
            return { status: Number(response.get('status')), body: body as Record<string, any> };
          },
          { path, method, json, multipart, file: EXAMPLE_FILE },
        );
      },
      // The session's cookie stays in the browser (HttpOnly, as the console keeps it); its CSRF token is the consoleCsrf scheme's value.
      sessionStarted: ({ body }) => authorize('consoleCsrf', body.result.data.csrfToken),
    };
    const ran = await runExamplesInOrder(openapi, throughSwaggerUi, () => mailedToken(app, smtp, openapi));
    assert.ok(ran.length > 150, `${ran.length} operations ran`);
  });
});
