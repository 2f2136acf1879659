import { Global, Module } from '@nestjs/common';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { Clock } from './clock.js';
import { DrainReports } from './drain-reports.js';
import { HealthReports } from './health-reports.js';
import { IdempotencyStore } from './idempotency-store.js';
import { IdempotentAnswers } from './answers/idempotent-answers.js';
import { OperationAnswers } from './answers/operation-answers.js';
import { PageTokens } from './paging.js';
import { Secrets } from './secrets.js';

/** Shared services every feature module uses. */
@Global()
@Module({
  providers: [Secrets, PageTokens, Transactions, Sql, Clock, HealthReports, DrainReports, IdempotencyStore, IdempotentAnswers, OperationAnswers],
  exports: [Secrets, PageTokens, Transactions, Sql, Clock, HealthReports, DrainReports, IdempotencyStore, IdempotentAnswers, OperationAnswers],
})
export class CoreModule {}
