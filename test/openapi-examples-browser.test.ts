// @testScope once: Swagger UI's run of every example, on the first combination chosen (SQLite with Fastify by default) to keep CI short; the same run goes over HTTP on all three combinations (openapi-examples), and every file /docs loads is served on each adapter (platform.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { launchChromium } from './helpers/browser.js';
import {
  EXAMPLE_FILE,
  EXAMPLES_MASTER_KEY,
  type ExampleDocument,
  type ExampleTransport,
  mailedToken,
  runExamplesInOrder,
} from './helpers/openapi-example-run.js';
import { SmtpReceiver } from './helpers/smtp-receiver.js';
import { createKey } from './factories/workspace.js';

describe("the OpenAPI document's examples in Swagger UI", () => {
  let app: TestApp;
  let smtp: SmtpReceiver;

  before(async () => {
    smtp = await new SmtpReceiver().start();
    app = await startApp({ SMTP_URL: smtp.url, MASTER_KEY: EXAMPLES_MASTER_KEY });
  });
  after(async () => {
    await app.close();
    await smtp.stop();
  });

  it('runs every example of the document through Swagger UI, in document order on a fresh key: each a whole success', async (t) => {
    const fresh = await createKey(app);
    const openapi = JSON.parse((await app.get('/docs/openapi.json')).text) as ExampleDocument;
    const browser = await launchChromium();
    t.after(() => browser.close());
    const page = await browser.newPage();
    await page.goto(`${app.url}/docs`);
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
