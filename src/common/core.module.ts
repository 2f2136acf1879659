import { Global, Module } from '@nestjs/common';
import { KeySettingsReader } from '../configs/key-settings.reader.js';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { PageTokens } from './paging.js';
import { Secrets } from './secrets.js';

/** Shared services every feature module uses. */
@Global()
@Module({
  providers: [Secrets, PageTokens, Transactions, Sql, KeySettingsReader],
  exports: [Secrets, PageTokens, Transactions, Sql, KeySettingsReader],
})
export class CoreModule {}
