import 'reflect-metadata';
import type { Server as HttpServer } from 'node:http';
import { Server as NetServer } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { AppModule } from './app.module.js';
import { ConfigError } from './config/parsers.js';
import type { AppConfig } from './config/app-config.js';
import { createRootLogger, PinoNestLogger } from './common/logging.module.js';
import { loadAppConfig, readProcessEnv } from './config/load-config.js';
import { createHttpPipeline } from './common/http/http-pipeline.js';
import { configureApp } from './configure-app.js';

/** How long shutdown answers requests on open connections 503 before closing them. */
const DRAIN_MS = 1000;

async function bootstrap(): Promise<void> {
  let config;
  try {
    config = loadAppConfig(readProcessEnv());
  } catch (error) {
    if (error instanceof ConfigError) {
      // A JSON line like every other, before a logger of the configured level can exist.
      createRootLogger('info').fatal(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = createRootLogger(config.logLevel);
  const http = createHttpPipeline(config);
  let app: INestApplication;
  try {
    // The service's logger from the first line, so start-up failures are JSON lines too.
    app = await NestFactory.create(AppModule.forConfig(config), http.adapter, { logger: new PinoNestLogger(logger), abortOnError: false, bodyParser: false });
    configureApp(app, http);
    await app.listen(config.port, config.host);
  } catch (error) {
    logger.fatal({ err: error }, 'The service could not start');
    process.exit(1);
  }
  if (config.masterKeyGeneratedInto) {
    logger.warn({ file: config.masterKeyGeneratedInto }, 'A master key was generated: back up this file (without it, no stored secret can be read)');
  }
  logger.info({ address: `http://${config.host}:${config.port}`, database: databaseShown(config), httpAdapter: config.httpAdapter }, 'Listening');
  const server = app.getHttpServer() as HttpServer;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // Bound how long a stuck request may hold the process.
      setTimeout(() => process.exit(1), config.shutdownTimeoutMs).unref();
      // First a short drain: no new connections (net's close, without HTTP's closing of idle
      // ones), and requests on open ones answered 503 with `Connection: close`, so kept-alive
      // clients get an answer, not a reset.
      http.beginDrain();
      NetServer.prototype.close.call(server);
      setTimeout(
        () => {
          // `app.close()` waits for in-flight requests, then closes the database. Keep-alive
          // connections that go idle meanwhile are closed too, or they would hold it open.
          const closeIdle = setInterval(() => server.closeIdleConnections(), 100);
          server.closeIdleConnections();
          app.close().then(
            () => {
              clearInterval(closeIdle);
              process.exit(0);
            },
            () => process.exit(1),
          );
        },
        Math.min(DRAIN_MS, config.shutdownTimeoutMs / 4),
      );
    });
  }
}

/** The database in use, without credentials: the embedded file, or PostgreSQL's host and database. */
function databaseShown(config: AppConfig): string {
  if (config.dialect === 'sqlite') return `sqlite ${config.database}`;
  const url = new URL(config.database);
  return `postgres ${url.host}${url.pathname}`;
}

await bootstrap();
