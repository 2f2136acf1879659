import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import { AppModule } from '../../src/app.module.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { createHttpAdapter } from '../../src/common/http-pipeline.js';
import { configureApp } from '../../src/configure-app.js';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  dataSource: DataSource;
  /** POST an operation with a JSON body and optional headers. */
  post(path: string, body: unknown, headers?: Record<string, string>): request.Test;
  close(): Promise<void>;
}

/**
 * Environment every test app starts from: in-memory SQLite (or the CI's PostgreSQL when
 * `DATABASE_URL` is set), a fresh master key, silent logs and rate limits off unless a test
 * turns one on. `overrides` win; `undefined` removes a variable.
 */
export function testEnvironment(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    SQLITE_FILE: ':memory:',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-test-')),
    DATABASE_URL: process.env.DATABASE_URL,
    MASTER_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
    REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
    RATE_LIMIT_WORKSPACE_CREATE: '0',
    RATE_LIMIT_LOGIN_LINK: '0',
    RATE_LIMIT_LOGIN_LINK_EMAIL: '0',
    RATE_LIMIT_WORKSPACE_GET: '0',
    RATE_LIMIT_API_KEY: '0',
    ...overrides,
  };
}

/** The real `AppModule` and `configureApp`, as `main.ts` builds them, on an ephemeral port-less server. */
export async function startApp(overrides: Record<string, string | undefined> = {}): Promise<TestApp> {
  const environment = testEnvironment(overrides);
  const config = loadAppConfig((name) => environment[name]);
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forConfig(config)] }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(config), { logger: false, bodyParser: false });
  configureApp(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const server = app.getHttpServer();
  return {
    app,
    config,
    dataSource: app.get<DataSource>(getDataSourceToken()),
    post: (path, body, headers = {}) => request(server).post(path).set(headers).send(body as object),
    close: () => app.close(),
  };
}
