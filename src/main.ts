import 'reflect-metadata';
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import type { Logger as Pino } from 'pino';
import { AppModule } from './app.module.js';
import { ConfigError } from './config/parsers.js';
import type { AppConfig } from './config/app-config.js';
import { DrainReports } from './common/drain-reports.js';
import { releaseStartupMemory } from './common/startup-memory.js';
import { createRootLogger, outputWritten, PinoNestLogger, ROOT_LOGGER } from './common/logging.module.js';
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
      const early = createRootLogger('info');
      early.fatal(error.message);
      return exitWhenWritten(1);
    }
    throw error;
  }
  const logger = createRootLogger(config.logLevel);
  const http = await createHttpPipeline(config);
  let app: INestApplication;
  try {
    // The service's logger from the first line, so start-up failures are JSON lines too.
    app = await NestFactory.create(AppModule.forConfig(config), http.adapter, { logger: new PinoNestLogger(logger), abortOnError: false, bodyParser: false });
    configureApp(app, http);
  } catch (error) {
    logger.fatal({ err: error }, 'The service could not start');
    return exitWhenWritten(1);
  }
  const server = app.getHttpServer() as HttpServer;
  const requests = countRequestsInFlight(server);
  try {
    // Initialises first (migrations, workers started), then binds the port.
    await app.init();
    await http.ready();
    const collectedMs = await releaseStartupMemory();
    logger.debug({ collectedMs }, 'Start-up memory released');
    await app.listen(config.port, config.host);
  } catch (error) {
    await refuseToStart(app, config, logger, error);
  }
  if (config.masterKeyGeneratedInto) {
    logger.warn({ file: config.masterKeyGeneratedInto }, 'A master key was generated: back up this file (without it, no stored secret can be read)');
  }
  logger.info({ address: `http://${config.host}:${config.port}`, database: databaseShown(config), httpAdapter: config.httpAdapter }, 'Listening');
  const drain = app.get(DrainReports);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      const started = performance.now();
      const elapsedMs = () => Math.round(performance.now() - started);
      logger.info({ signal, shutdownTimeoutMs: config.shutdownTimeoutMs }, `${signal} received: shutting down`);
      // Bound how long a stuck request may hold the process. A timer counts from the event loop's
      // cached time, which can be a little behind `started`: it is set again for what is left, so
      // the line's elapsedMs is never short of the limit.
      const timedOut = () => {
        const left = config.shutdownTimeoutMs - (performance.now() - started);
        if (left > 0) return void setTimeout(timedOut, Math.ceil(left)).unref();
        logger.error(
          { code: 1, elapsedMs: elapsedMs(), inFlightRequests: requests.inFlight, ...drain.read() },
          'Exiting: the shutdown did not end within SHUTDOWN_TIMEOUT_MS',
        );
        void exitWhenWritten(1);
      };
      setTimeout(timedOut, config.shutdownTimeoutMs).unref();
      logger.info(
        { inFlightRequests: requests.inFlight, ...drain.read() },
        'Draining: waiting for requests in flight, live rooms to be stored and deliveries to end',
      );
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
              logger.info({ code: 0, elapsedMs: elapsedMs() }, 'Exiting: shut down cleanly');
              void exitWhenWritten(0);
            },
            (error: unknown) => {
              logger.error({ err: error, code: 1, elapsedMs: elapsedMs() }, 'Exiting: the shutdown failed');
              void exitWhenWritten(1);
            },
          );
        },
        Math.min(DRAIN_MS, config.shutdownTimeoutMs / 4),
      );
    });
  }
}

/**
 * Requests received and not yet answered (or abandoned), for the shutdown's log lines: one
 * listener per request on Node's server, whichever framework serves it.
 */
function countRequestsInFlight(server: HttpServer): { readonly inFlight: number } {
  const counter = { inFlight: 0 };
  const ended = () => counter.inFlight--;
  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    counter.inFlight++;
    response.on('close', ended);
  });
  return counter;
}

/**
 * The port could not be bound (taken, not permitted) or the last step of start-up failed: one
 * fatal line (a port problem needs no stack), the workers already started stopped quietly (claims
 * handed back), and exit 1.
 */
async function refuseToStart(app: INestApplication, config: AppConfig, logger: Pino, error: unknown): Promise<never> {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  const address = `${config.host}:${config.port}`;
  if (syscall === 'listen') {
    const reason =
      code === 'EADDRINUSE' ? `${address} is already in use` : code === 'EACCES' ? `no permission to listen on ${address}` : `cannot listen on ${address}`;
    logger.fatal({ code, address }, `The service could not start: ${reason}`);
  } else {
    logger.fatal({ err: error }, 'The service could not start');
  }
  setTimeout(() => process.exit(1), config.shutdownTimeoutMs).unref();
  // Only failures of the stopping are worth a line now.
  app.get<Pino>(ROOT_LOGGER).level = 'error';
  await app.close().catch(() => undefined);
  return exitWhenWritten(1);
}

/** Exits with `code` once what was logged has been written (`outputWritten`), so the exit line is the last one out. */
function exitWhenWritten(code: number): Promise<never> {
  return new Promise<never>(() => void outputWritten().then(() => process.exit(code)));
}

/** The database in use, without credentials: the embedded file, or PostgreSQL's host and database. */
function databaseShown(config: AppConfig): string {
  if (config.dialect === 'sqlite') return `sqlite ${config.database}`;
  const url = new URL(config.database);
  return `postgres ${url.host}${url.pathname}`;
}

await bootstrap();
