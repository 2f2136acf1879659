import { Global, Module } from '@nestjs/common';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { Clock } from './clock.js';
import { PageTokens } from './paging.js';
import { Secrets } from './secrets.js';

/** Shared services every feature module uses. */
@Global()
@Module({
  providers: [Secrets, PageTokens, Transactions, Sql, Clock],
  exports: [Secrets, PageTokens, Transactions, Sql, Clock],
})
export class CoreModule {}
