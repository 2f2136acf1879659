import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Logger as Pino } from 'pino';
import { installHttpPipeline } from './common/http-pipeline.js';
import { PinoNestLogger, ROOT_LOGGER } from './common/logging.module.js';
import { AppConfig } from './config/app-config.js';
import { Metrics } from './metrics/metrics.js';

/**
 * Everything `main.ts` and the e2e tests must share, applied to an app created with
 * `createHttpAdapter(config)` before `init()`.
 */
export function configureApp(app: NestFastifyApplication): AppConfig {
  const config = app.get(AppConfig);
  app.useLogger(app.get(PinoNestLogger));
  installHttpPipeline(app.getHttpAdapter().getInstance(), config, app.get<Pino>(ROOT_LOGGER), app.get(Metrics));
  SwaggerModule.setup('docs', app, () => openApiDocument(app, config), { jsonDocumentUrl: 'docs/openapi.json' });
  return config;
}

/** The OpenAPI document (served at `/docs/openapi.json`, written by `npm run openapi`). */
export function openApiDocument(app: NestFastifyApplication, config: AppConfig): OpenAPIObject {
  const product = config.headerProduct;
  const builder = new DocumentBuilder()
    .setTitle('Collaboration backend')
    .setDescription(
      'Every operation is POST with a JSON body `{ "data": { ... } }` and answers ' +
        '`{ "result": { "status": "success", "message", "data" } }` or `{ "error": { "status", "message", "details" } }`. ' +
        `API-key operations take \`x-${product}-api-key\` and \`x-${product}-auth-token\`; workspace operations take ` +
        `\`x-${product}-workspace-id\` and \`x-${product}-workspace-auth-token\`.`,
    )
    .setVersion('2')
    .addApiKey({ type: 'apiKey', in: 'header', name: `x-${product}-api-key` }, 'apiKey')
    .addApiKey({ type: 'apiKey', in: 'header', name: `x-${product}-auth-token` }, 'authToken')
    .addApiKey({ type: 'apiKey', in: 'header', name: `x-${product}-workspace-id` }, 'workspaceId')
    .addApiKey({ type: 'apiKey', in: 'header', name: `x-${product}-workspace-auth-token` }, 'workspaceAuthToken')
    .build();
  return SwaggerModule.createDocument(app, builder);
}
