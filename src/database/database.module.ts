import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { dataSourceOptions } from './data-source-options.js';
import { bindEmbeddedIntegers } from './embedded-parameters.js';
import { runMigrations } from './migrate.js';
import { WalCheckpointer } from './wal-checkpointer.js';

/**
 * The one DataSource of the app, migrated at start-up unless `MIGRATIONS_RUN=false`; closed on
 * shutdown. A file-backed embedded database gets its log checkpoints in a worker thread, and
 * TypeORM binds integers on it (`bindEmbeddedIntegers`).
 */
@Module({})
export class DatabaseModule {
  static forConfig(config: AppConfig): DynamicModule {
    return {
      module: DatabaseModule,
      // The app's one data source: every module may ask for its checkpointer.
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          // Each module's `forFeature` entities, and no others: no list here to keep in step.
          useFactory: () => ({ ...dataSourceOptions(config), autoLoadEntities: true, retryAttempts: 3, retryDelay: 1000 }),
          dataSourceFactory: async (options) => {
            const dataSource = new DataSource(options!);
            bindEmbeddedIntegers(dataSource);
            await dataSource.initialize();
            logMigrations(config.migrationsRun ? await runMigrations(dataSource) : undefined);
            return dataSource;
          },
        }),
      ],
      providers: [WalCheckpointer],
      exports: [WalCheckpointer],
    };
  }
}

/** One line at start-up: the migrations applied (names and count), none pending, or not run (`MIGRATIONS_RUN=false`). */
function logMigrations(applied: string[] | undefined): void {
  const logger = new Logger('Migrations');
  if (!applied) logger.log('Migrations not run at start-up (MIGRATIONS_RUN=false)');
  else if (applied.length) logger.log({ count: applied.length, migrations: applied }, `Applied ${applied.length} migration${applied.length === 1 ? '' : 's'}`);
  else logger.log({ count: 0 }, 'No migrations pending');
}
