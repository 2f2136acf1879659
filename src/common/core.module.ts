import { Global, Module } from '@nestjs/common';
import { Transactions } from '../database/transactions.js';
import { PageTokens } from './paging.js';
import { Secrets } from './secrets.js';

/** Shared services every feature module uses. */
@Global()
@Module({
  providers: [Secrets, PageTokens, Transactions],
  exports: [Secrets, PageTokens, Transactions],
})
export class CoreModule {}
