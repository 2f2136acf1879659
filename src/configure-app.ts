import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Logger as Pino } from 'pino';
import type { HttpPipeline } from './common/http/pipeline.js';
import { PinoNestLogger, ROOT_LOGGER } from './common/logging.module.js';
import { AppConfig } from './config/app-config.js';
import { CONSOLE_CSRF_HEADER, CONSOLE_SESSION_COOKIE } from './common/guards/credentials.guard.js';
import { Metrics } from './common/metrics.js';
import { OperationAnswers } from './common/answers/operation-answers.js';
import { declareIdempotencyKey } from './common/idempotency.js';
import { referencedModels, withBodyLimit } from './common/openapi-responses.js';
import { operationIdOf, withRequestExamples } from './common/openapi-examples.js';

/**
 * Everything `main.ts` and the e2e tests must share, applied to an app created with
 * `http.adapter` (see `createHttpPipeline`) before `init()`.
 */
export function configureApp(app: INestApplication, http: HttpPipeline): AppConfig {
  const config = app.get(AppConfig);
  app.useLogger(app.get(PinoNestLogger));
  http.install(app, { config, logger: app.get<Pino>(ROOT_LOGGER), metrics: app.get(Metrics), answers: app.get(OperationAnswers) });
  // Tags start collapsed: Swagger UI, asked to list all ~150 operations at once, rendered only
  // the first few (seen in Chromium); a tag opened on a click renders whole.
  SwaggerModule.setup('docs', app, () => openApiDocument(app, config), { jsonDocumentUrl: 'docs/openapi.json', swaggerOptions: { docExpansion: 'none' } });
  return config;
}

/** The OpenAPI document (served at `/docs/openapi.json`, written by `npm run openapi`). */
export function openApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const product = config.headerProduct;
  const builder = new DocumentBuilder()
    .setTitle('Collaboration backend')
    .setDescription(
      'Every operation is POST with a JSON body `{ "data": { ... } }` and answers ' +
        '`{ "result": { "status": "success", "message", "data" } }` or `{ "error": { "status", "message", "details" } }`. ' +
        `API-key operations take \`x-${product}-api-key\` and \`x-${product}-auth-token\`; workspace operations take ` +
        `\`x-${product}-workspace-id\` and \`x-${product}-workspace-auth-token\`. The console signs in once ` +
        `(\`/v2/console/session/create\`) and then calls the same operations with its \`${CONSOLE_SESSION_COOKIE}\` cookie in place of the ` +
        `auth token, naming the key or workspace in its header as above, and the session's CSRF token in \`${CONSOLE_CSRF_HEADER}\`. ` +
        'Any operation may carry an `Idempotency-Key` header: a repeat of an API-key or workspace operation with the same key and body gets ' +
        'the first answer again (`Idempotent-Replayed: true`) instead of running twice.',
    )
    .setVersion('2')
    .addApiKey({ type: 'apiKey', in: 'header', name: `x-${product}-api-key` }, 'apiKey')
    .addApiKey({ type: 'apiKey', in: 'header', name: `x-${product}-auth-token` }, 'authToken')
    .addApiKey({ type: 'apiKey', in: 'header', name: `x-${product}-workspace-id` }, 'workspaceId')
    .addApiKey({ type: 'apiKey', in: 'header', name: `x-${product}-workspace-auth-token` }, 'workspaceAuthToken')
    .addApiKey({ type: 'apiKey', in: 'cookie', name: CONSOLE_SESSION_COOKIE }, 'consoleSession')
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: CONSOLE_CSRF_HEADER,
        description: "The `csrfToken` of the console session's answer (`console/session/create` or `get`).",
      },
      'consoleCsrf',
    )
    .addServer('/', 'This service')
    .build();
  const document = SwaggerModule.createDocument(app, builder, { extraModels: referencedModels() });
  for (const [path, item] of Object.entries(document.paths)) {
    for (const operation of [item.get, item.post]) {
      if (!operation) continue;
      // No requirement means "no credentials" (public operations, health, metrics), said explicitly.
      operation.security ??= [];
      // One id per path, an alias's too (`v1_organizations_add`), as generated clients name methods.
      operation.operationId = operationIdOf(path);
    }
  }
  declareIdempotencyKey(document, config.idempotencyRetentionHours);
  return withBodyLimit(withRequestExamples(document), config.bodyLimitBytes);
}
