import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module.js';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ActivityModule } from '../activity/activity.module.js';
import { Sql } from '../database/sql.js';
import { JudgmentStore } from './judgment-store.js';
import { EmbeddedJudgmentSearch, JudgmentSearch, PostgresJudgmentSearch } from './judgment-search.js';
import { MemoryController } from './memory.controller.js';
import { MemoryService } from './memory.service.js';

/** Judgments derived from decision activities, and suggestions drawn from them (contract part 8). */
@Module({
  imports: [ActivityModule, DirectoryModule],
  controllers: [MemoryController],
  providers: [
    MemoryService,
    JudgmentStore,
    // Full-text search is the database's own: the strategy follows the dialect.
    {
      provide: JudgmentSearch,
      inject: [getDataSourceToken(), Sql],
      useFactory: (dataSource: DataSource, sql: Sql) =>
        dataSource.options.type === 'postgres' ? new PostgresJudgmentSearch(sql) : new EmbeddedJudgmentSearch(sql),
    },
  ],
  exports: [JudgmentStore],
})
export class MemoryModule {}
