import { InjectDataSource } from '@nestjs/typeorm';
import { Command, CommandRunner, SubCommand } from 'nest-commander';
import type { DataSource } from 'typeorm';
import { runMigrations } from '../database/migrate.js';
import { print } from './output.js';
import { CommandGroup } from './program.js';

@SubCommand({ name: 'run', description: 'Apply pending migrations (for MIGRATIONS_RUN=false deployments)' })
export class RunMigrationsCommand extends CommandRunner {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async run(): Promise<void> {
    const applied = await runMigrations(this.dataSource);
    print(applied.length ? applied.map((name) => `applied ${name}`) : 'The schema is up to date.');
  }
}

@Command({ name: 'migration', description: 'Database schema', subCommands: [RunMigrationsCommand] })
export class MigrationCommand extends CommandGroup {}
