import { type DynamicModule, Module } from '@nestjs/common';
import { AppModule } from '../app.module.js';
import { WorkspaceModule } from '../workspace/workspace.module.js';
import { DeliveryModule } from '../delivery/delivery.module.js';
import type { AppConfig } from '../config/app-config.js';
import { ApiKeyCommand, CreateApiKeyCommand, ListApiKeysCommand, RevokeApiKeyCommand, ShowApiKeyCommand } from './apikey.command.js';
import { DeliveriesCommand, DeliveryProblemsCommand } from './deliveries.command.js';
import { MasterKeyCliModule } from './master-key.command.js';
import { MigrationCommand, RunMigrationsCommand } from './migration.command.js';
import { CliProgram } from './program.js';
import { CreateWorkspaceCommand, ListWorkspacesCommand, SetPlanCommand, ShowWorkspaceCommand, WorkspaceCommand } from './workspace.command.js';

/** Admin commands, running the same services as the HTTP API. Later modules add theirs here. */
@Module({})
export class CliModule {
  static forConfig(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [AppModule.forConfig(config), WorkspaceModule, DeliveryModule, MasterKeyCliModule],
      providers: [
        CliProgram,
        WorkspaceCommand,
        CreateWorkspaceCommand,
        SetPlanCommand,
        ListWorkspacesCommand,
        ShowWorkspaceCommand,
        ApiKeyCommand,
        CreateApiKeyCommand,
        ListApiKeysCommand,
        ShowApiKeyCommand,
        RevokeApiKeyCommand,
        MigrationCommand,
        RunMigrationsCommand,
        DeliveriesCommand,
        DeliveryProblemsCommand,
      ],
    };
  }
}
