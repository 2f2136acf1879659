import { Global, Module } from '@nestjs/common';
import { KeySettingsReader } from '../configs/key-settings.reader.js';
import { Sql } from '../database/sql.js';
import { Transactions } from '../database/transactions.js';
import { Clock } from './clock.js';
import { PageTokens } from './paging.js';
import { Secrets } from './secrets.js';

/** Shared services every feature module uses. */
@Global()
@Module({
  providers: [Secrets, PageTokens, Transactions, Sql, KeySettingsReader, Clock],
  exports: [Secrets, PageTokens, Transactions, Sql, KeySettingsReader, Clock],
})
export class CoreModule {}
