import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express, { type NextFunction, type Request, type Response } from 'express';
import { Logger } from 'nestjs-pino';
import { AppConfig } from './config/app-config.js';
import type { ServiceRequest } from './common/request-context.js';

/**
 * Everything `main.ts` and the e2e tests must share, applied to an app created with
 * `bodyParser: false`. Bodies are parsed as JSON whatever their content type; a body that does
 * not parse is kept aside (not answered here) so that credentials are checked first.
 */
export function configureApp(app: NestExpressApplication): AppConfig {
  const config = app.get(AppConfig);
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(express.json({ limit: config.bodyLimitBytes, type: () => true, strict: false }));
  app.use((error: ServiceRequest['bodyError'], request: Request, _response: Response, next: NextFunction) => {
    (request as ServiceRequest).bodyError = { type: error?.type ?? 'entity.parse.failed', status: error?.status, limit: error?.limit };
    next();
  });
  setUpOpenApi(app, config);
  app.enableShutdownHooks();
  return config;
}

export function openApiDocument(app: NestExpressApplication, config: AppConfig) {
  const product = config.headerProduct;
  const builder = new DocumentBuilder()
    .setTitle('Collaboration backend')
    .setDescription(
      'Every operation is POST with a JSON body `{ "data": { ... } }`. API-key operations take ' +
        `\`x-${product}-api-key\` and \`x-${product}-auth-token\`; workspace operations take ` +
        `\`x-${product}-workspace-id\` and \`x-${product}-workspace-auth-token\`.`,
    )
    .setVersion('2')
    .addApiKey({ type: 'apiKey', in: 'header', name: `x-${product}-api-key` }, 'apiKey')
    .addApiKey({ type: 'apiKey', in: 'header', name: `x-${product}-auth-token` }, 'authToken')
    .build();
  return SwaggerModule.createDocument(app, builder);
}

function setUpOpenApi(app: NestExpressApplication, config: AppConfig): void {
  SwaggerModule.setup('docs', app, () => openApiDocument(app, config), { jsonDocumentUrl: 'docs/openapi.json', useGlobalPrefix: false });
}
