import { Module } from '@nestjs/common';
import { RateLimitStoreModule } from '../common/rate-limit/rate-limit.module.js';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CredentialVerifier } from '../common/guards/credential-verifier.js';
import { MailModule } from '../mail/mail.module.js';
import { AllowedDomainStore } from './allowed-domain-store.js';
import { ApiKeyService } from './api-key.service.js';
import { ApiKeysModule } from './api-keys.module.js';
import { CredentialsService } from './credentials.service.js';
import { DomainsService } from './domains.service.js';
import { AccountEntity } from './entities/account.entity.js';
import { AllowedDomainEntity } from './entities/allowed-domain.entity.js';
import { LoginTokenEntity } from './entities/login-token.entity.js';
import { WorkspaceEntity } from './entities/workspace.entity.js';
import { ConsoleSessionController } from './console-session.controller.js';
import { ConsoleSessionsService } from './console-sessions.service.js';
import { LoginService } from './login.service.js';
import { WorkspaceController } from './workspace.controller.js';
import { WorkspaceStore } from './workspace-store.js';
import { WorkspaceService } from './workspace.service.js';
import { UserTokensController } from './user-tokens.controller.js';
import { UserTokens } from './user-tokens.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([AccountEntity, WorkspaceEntity, AllowedDomainEntity, LoginTokenEntity]), ApiKeysModule, MailModule, RateLimitStoreModule],
  controllers: [WorkspaceController, UserTokensController, ConsoleSessionController],
  providers: [
    WorkspaceStore,
    AllowedDomainStore,
    CredentialsService,
    { provide: CredentialVerifier, useExisting: CredentialsService },
    WorkspaceService,
    ApiKeyService,
    DomainsService,
    LoginService,
    ConsoleSessionsService,
    UserTokens,
  ],
  exports: [CredentialVerifier, WorkspaceService, ApiKeyService, AllowedDomainStore, UserTokens, WorkspaceStore],
})
export class WorkspaceModule {}
