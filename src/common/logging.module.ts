import { Global, Inject, Injectable, type LoggerService, Module } from '@nestjs/common';
import { pino, type Logger as Pino } from 'pino';
import { AppConfig } from '../config/app-config.js';

const ROOT_LOGGER = Symbol('ROOT_LOGGER');
/**
 * Nest's logger interface over pino: JSON lines, one shape for framework and service logs.
 * Structured calls (`logger.warn({ err, requestId }, 'msg')`) keep their fields.
 */
@Injectable()
export class PinoNestLogger implements LoggerService {
  constructor(@Inject(ROOT_LOGGER) private readonly pino: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
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

/** The service's one pino instance: JSON lines, secrets redacted (also used by `main.ts` before the app exists). */
export function createRootLogger(level: string): Pino {
  return pino({ level, redact: { paths: ['*.authToken', '*.token', '*.apiKey', '*.secret', '*.password'], censor: '[redacted]' } });
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
