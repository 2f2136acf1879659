import { Global, Inject, Injectable, type LoggerService, Module } from '@nestjs/common';
import { pino, type DestinationStream, type Logger as Pino } from 'pino';
import { AppConfig } from '../config/app-config.js';

const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * Nest's own lines an operator need not read at `info`: one per route at start-up (about 250),
 * one per module loaded (about 35), "Starting Nest application...", and "successfully started",
 * which Nest prints before the port is bound (the service's `Listening` line says it is up). Its
 * error for a port that could not be bound is `main.ts`'s one fatal line. They stay at `debug`.
 */
const FRAMEWORK_DEBUG_CONTEXTS = new Set(['RouterExplorer', 'RoutesResolver', 'InstanceLoader', 'NestFactory']);
const NEST_STARTED = 'Nest application successfully started';
const NEST_LISTEN_FAILED = /^Error: listen /;

/**
 * Nest's logger interface over pino: JSON lines, one shape for framework and service logs.
 * Structured calls (`logger.warn({ err, requestId }, 'msg')`) keep their fields.
 */
@Injectable()
export class PinoNestLogger implements LoggerService {
  constructor(@Inject(ROOT_LOGGER) private readonly pino: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write(frameworkDetail(message, params) ? 'debug' : 'info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write(frameworkDetail(message, params) ? 'debug' : 'error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    // Nest passes the context last, and for errors a stack before it.
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const text = params.find((p): p is string => typeof p === 'string');
    if (typeof message === 'object' && message !== null && !(message instanceof Error)) {
      this.pino[level]({ context, ...(message as object) }, text);
    } else if (message instanceof Error) {
      this.pino[level]({ context, err: message }, message.message);
    } else {
      this.pino[level]({ context, ...(text ? { stack: text } : {}) }, String(message));
    }
  }
}

/** Whether a line Nest logs at `info` or `error` is one of its start-up details (see `FRAMEWORK_DEBUG_CONTEXTS`). */
function frameworkDetail(message: unknown, params: unknown[]): boolean {
  const context = params[params.length - 1];
  if (typeof context !== 'string') return false;
  if (FRAMEWORK_DEBUG_CONTEXTS.has(context)) return true;
  return context === 'NestApplication' && typeof message === 'string' && (message === NEST_STARTED || NEST_LISTEN_FAILED.test(message));
}

/**
 * Standard output, shared by every logger of the process: `main.ts`'s and the app's write
 * asynchronously, and two streams on one descriptor could print their lines out of order
 * (Nest's start-up lines after `Listening`, say). Flushed on exit.
 */
let stdout: DestinationStream | undefined;

/**
 * Resolves once no write to standard output is in flight (a second at most). The destination
 * writes asynchronously, and pino's flush at exit writes the waiting lines at once, ahead of a
 * write still in flight: exiting then printed a line logged earlier after the exit line (seen in
 * CI: the shutdown's `Delivery counters` after `Exiting`), or could lose it. SonicBoom has no
 * public flag for it, hence its `_writing`.
 */
export async function outputWritten(timeoutMs = 1000): Promise<void> {
  const stream = stdout as { _writing?: boolean } | undefined;
  const until = Date.now() + timeoutMs;
  while (stream?._writing === true && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** The service's pino instance: JSON lines, secrets redacted (also used by `main.ts` before the app exists). */
export function createRootLogger(level: string): Pino {
  stdout ??= pino.destination(1);
  return pino({ level, redact: { paths: ['*.authToken', '*.token', '*.apiKey', '*.secret', '*.password'], censor: '[redacted]' } }, stdout);
}

@Global()
@Module({
  providers: [
    {
      provide: ROOT_LOGGER,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => createRootLogger(config.logLevel),
    },
    PinoNestLogger,
  ],
  exports: [ROOT_LOGGER, PinoNestLogger],
})
export class LoggingModule {}

export { ROOT_LOGGER };
