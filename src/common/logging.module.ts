import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig } from '../config/app-config.js';

const REQUEST_ID = /^[\w.:@-]{1,128}$/;

/** The caller's `x-request-id` when it is a sane token, else a new UUID; echoed on the response. */
export function requestIdFor(request: IncomingMessage, response: ServerResponse): string {
  const sent = request.headers['x-request-id'];
  const id = typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
  response.setHeader('x-request-id', id);
  return id;
}

/**
 * JSON logs with a request id on every line. Requests are logged by method, path and status
 * only: headers (credentials) and bodies (secrets, personal data) never reach the log.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        pinoHttp: {
          level: config.logLevel,
          genReqId: requestIdFor,
          customLogLevel: (_request, response, error) =>
            error || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'info' : 'debug',
          serializers: {
            req: (request: { id: unknown; method: string; url: string }) => ({ id: request.id, method: request.method, path: request.url.split('?')[0] }),
            res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
          },
          redact: { paths: ['*.authToken', '*.token', '*.apiKey', '*.secret', '*.password'], censor: '[redacted]' },
        },
      }),
    }),
  ],
})
export class LoggingModule {}
