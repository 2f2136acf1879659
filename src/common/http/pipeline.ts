import type { INestApplication } from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import type { Logger as Pino } from 'pino';
import type { AppConfig } from '../../config/app-config.js';
import type { Metrics } from '../metrics.js';
import type { OperationAnswers } from '../answers/operation-answers.js';

/** What the request pipeline reports to: the service's logger and metrics. */
export interface PipelineDependencies {
  readonly config: AppConfig;
  readonly logger: Pino;
  readonly metrics: Metrics;
  /** Put on every request (`AnswerableRequest.operationAnswers`): declared operations answer through it (`Answered`). */
  readonly answers: OperationAnswers;
}

/**
 * Everything that depends on the HTTP framework under Nest, behind one small interface; no other
 * module knows which framework runs (`HTTP_ADAPTER`). Each implementation gives, before Nest's
 * router:
 * - a request id on every request (the caller's sane `x-request-id`, else a new UUID) and on
 *   every response;
 * - bodies read as JSON whatever their content type, up to `BODY_LIMIT`; one that is too large or
 *   does not parse is kept on the request (`bodyProblem`) so credentials are checked first and
 *   `@RequestData()` reports it (contract 1.1); one far over the limit, or too slow, is refused;
 * - the same time limits and the envelope for what Node's HTTP parser refuses;
 * - a drain on shutdown (every request answered 503 UNAVAILABLE with `Connection: close`);
 * - one log line and metrics per request.
 */
export interface HttpPipeline {
  /** Nest's adapter to create the application with. */
  readonly adapter: AbstractHttpAdapter;
  /** Installs the pipeline on the created application, before `init()`. */
  install(app: INestApplication, dependencies: PipelineDependencies): void;
  /** Resolves once the framework serves requests (after `init()`). */
  ready(): Promise<void>;
  /** Shutdown's first step: every request from now on, on open connections too, gets 503. */
  beginDrain(): void;
}
