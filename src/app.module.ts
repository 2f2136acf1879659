import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { CoreModule } from './common/core.module.js';
import { ApiExceptionFilter } from './common/filters/api-exception.filter.js';
import { CredentialsGuard } from './common/guards/credentials.guard.js';
import { LoggingModule } from './common/logging.module.js';
import { RateLimitGuard } from './common/rate-limit/rate-limit.guard.js';
import { RateLimitModule } from './common/rate-limit/rate-limit.module.js';
import { createValidationPipe } from './common/validation/pipe.js';
import type { AppConfig } from './config/app-config.js';
import { AppConfigModule } from './config/app-config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { HealthModule } from './health/health.module.js';
import { ConsoleModule } from './console/console.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { AccessModule } from './access/access.module.js';
import { ActivityModule } from './activity/activity.module.js';
import { ConfigsModule } from './configs/configs.module.js';
import { CrdtModule } from './crdt/crdt.module.js';
import { DeliveryModule } from './delivery/delivery.module.js';
import { CommentsModule } from './comments/comments.module.js';
import { InboxModule } from './inbox/inbox.module.js';
import { LiveModule } from './live/live.module.js';
import { AttachmentsModule } from './attachments/attachments.module.js';
import { MemoryModule } from './memory/memory.module.js';
import { DirectoryModule } from './directory/directory.module.js';
import { PrivacyModule } from './privacy/privacy.module.js';
import { WorkspaceModule } from './workspace/workspace.module.js';

/**
 * The whole service for one validated configuration. Production (`main.ts`), the CLI and the
 * e2e tests all build exactly this, so global pipes, guards and filters behave the same.
 */
@Module({})
export class AppModule {
  static forConfig(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forConfig(config),
        LoggingModule,
        DatabaseModule.forConfig(config),
        CoreModule,
        MetricsModule,
        RateLimitModule,
        HealthModule,
        ConsoleModule,
        WorkspaceModule,
        ConfigsModule,
        DirectoryModule,
        AccessModule,
        ActivityModule,
        CrdtModule,
        LiveModule,
        AttachmentsModule,
        DeliveryModule,
        InboxModule,
        CommentsModule,
        MemoryModule,
        PrivacyModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        // Order matters: credentials first, so rate limits can track the authenticated principal.
        { provide: APP_GUARD, useClass: CredentialsGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
      ],
    };
  }
}
