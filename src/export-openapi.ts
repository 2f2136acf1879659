import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';
import { createHttpPipeline } from './common/http/http-pipeline.js';
import { loadAppConfig, readProcessEnv } from './config/load-config.js';
import { configureApp, openApiDocument } from './configure-app.js';

/**
 * `npm run openapi`: writes the OpenAPI document (the one served at /docs/openapi.json) to
 * `openapi.json`, from the real app on a throw-away in-memory database.
 */
const env = readProcessEnv();
const overrides: Record<string, string | undefined> = {
  DATABASE_URL: undefined,
  SQLITE_FILE: ':memory:',
  MASTER_KEY: randomBytes(32).toString('base64'),
  LOG_LEVEL: 'warn',
  REDIS_URL: undefined,
  DELIVERY_CONCURRENCY: '0',
  DATA_DELETION_WORKER: 'false',
};
const config = loadAppConfig((name) => (name in overrides ? overrides[name] : env(name)));
const http = await createHttpPipeline(config);
const app = await NestFactory.create(AppModule.forConfig(config), http.adapter, { logger: false, bodyParser: false });
configureApp(app, http);
await app.init();
const out = process.argv[2] ?? 'openapi.json';
writeFileSync(out, `${JSON.stringify(openApiDocument(app, config), null, 2)}\n`);
await app.close();
process.stdout.write(`wrote ${out}\n`);
