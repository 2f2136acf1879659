import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import { AppModule } from '../../src/app.module.js';
import { Clock } from '../../src/common/clock.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { loadAppConfig } from '../../src/config/load-config.js';
import { createHttpPipeline } from '../../src/common/http/http-pipeline.js';
import { configureApp, openApiDocument } from '../../src/configure-app.js';
import { OpenApiConformance } from './openapi-conformance.js';

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  dataSource: DataSource;
  /** Where the app listens on loopback: `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** POST an operation with a JSON body and optional headers; the answer is checked against the OpenAPI document. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<request.Response>;
  /** GET a path (health, metrics, the OpenAPI document). */
  get(path: string): request.Test;
  close(): Promise<void>;
}

/**
 * Environment every test app starts from: SQLite in a fresh temporary folder (or the CI's PostgreSQL when
 * `DATABASE_URL` is set), a fresh master key, silent logs and rate limits off unless a test
 * turns one on. `overrides` win; `undefined` removes a variable.
 */
export function testEnvironment(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  return {
    // A file, as in production: reads outside transactions then use their own connection.
    SQLITE_FILE: join(dataDir, 'svc.sqlite'),
    DATA_DIR: dataDir,
    DATABASE_URL: process.env.DATABASE_URL,
    // CI runs the suite once per framework.
    HTTP_ADAPTER: process.env.HTTP_ADAPTER,
    MASTER_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
    REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
    RATE_LIMIT_WORKSPACE_CREATE: '0',
    RATE_LIMIT_LOGIN_LINK: '0',
    RATE_LIMIT_LOGIN_LINK_EMAIL: '0',
    RATE_LIMIT_LOGIN_VERIFY: '0',
    RATE_LIMIT_EMAIL_STATUS: '0',
    RATE_LIMIT_WORKSPACE_GET: '0',
    RATE_LIMIT_API_KEY: '0',
    RATE_LIMIT_TOKEN_FAILURES: '0',
    // Suites that test delivery start the worker; the others keep the database to themselves.
    DELIVERY_CONCURRENCY: '0',
    ...overrides,
  };
}

/** A clock tests move by hand, to step through retry schedules of hours without waiting. */
export class ManualClock extends Clock {
  private at = Date.now();

  override now(): number {
    return this.at;
  }

  advance(ms: number): void {
    this.at += ms;
  }
}

let conformance: OpenApiConformance | undefined;

/**
 * Objects are sent as JSON text serialized here: superagent's own serializer walks for cycles
 * at a cost quadratic in depth (seconds per body on the fuzz test's 5,000-deep values). Strings,
 * and bodies sent with a content type of the test's choosing, go as they are.
 */
function send(test: request.Test, body: unknown, headers: Record<string, string>): request.Test {
  test.set(headers);
  if (typeof body !== 'object' || body === null || Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
    return test.send(body as string | object);
  return test.type('application/json').send(JSON.stringify(body));
}

/**
 * The real `AppModule` and `configureApp`, as `main.ts` builds them, on an ephemeral port-less
 * server; `clock` replaces the delivery pipeline's clock.
 */
export async function startApp(overrides: Record<string, string | undefined> = {}, options: { clock?: Clock } = {}): Promise<TestApp> {
  const environment = testEnvironment(overrides);
  const config = loadAppConfig((name) => environment[name]);
  const builder = Test.createTestingModule({ imports: [AppModule.forConfig(config)] });
  if (options.clock) builder.overrideProvider(Clock).useValue(options.clock);
  const moduleRef = await builder.compile();
  const http = await createHttpPipeline(config);
  const app = moduleRef.createNestApplication(http.adapter, { logger: false, bodyParser: false });
  configureApp(app, http);
  // Listening once, with a keep-alive agent of the app's own, spares every request a listen, a
  // connect and a close (supertest listens anew per request on a server that is not listening,
  // and superagent's default agent opened a connection per request).
  await app.listen(0, '127.0.0.1');
  const agent = new Agent({ keepAlive: true });
  await http.ready();
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  // Every answer of every test is checked against the OpenAPI document (built once per process).
  conformance ??= new OpenApiConformance(openApiDocument(app, config));
  const checker = conformance;
  const conforms = (path: string) => (response: request.Response) => {
    const problem = checker.problem('POST', path, response.status, response.body);
    if (problem) throw new Error(problem);
  };
  return {
    app,
    config,
    dataSource: app.get<DataSource>(getDataSourceToken()),
    url,
    port,
    // Checked in a plain `then`: supertest's `expect` captures a stack trace per call, which
    // the thousands of requests of the robustness test paid seconds for.
    post: (path, body, headers = {}) =>
      send(request(url).post(path).agent(agent), body, headers).then((response) => {
        conforms(path)(response);
        return response;
      }),
    get: (path) => request(url).get(path).agent(agent),
    close: async () => {
      agent.destroy();
      await app.close();
    },
  };
}

/**
 * Reads until `done` holds of what is read (or `timeoutMs` passes), and returns the last read:
 * for what the service does after answering (inbox entries the delivery worker writes). The
 * caller asserts on the value, so a timeout fails with what was there. The wait is long (15 s)
 * because it ends as soon as `done` holds: only a loaded CI machine (three files at once beside
 * a browser on two cores) comes near it (a CI run failed comments.test there with 5 s; its log had
 * lost which test, and these waits were the only time-bound steps in it).
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
