import { Module } from '@nestjs/common';
import { ConfigsModule } from '../configs/configs.module.js';
import { MailModule } from '../mail/mail.module.js';
import { ApiKeysModule } from '../workspace/api-keys.module.js';
import { WorkspaceModule } from '../workspace/workspace.module.js';
import { MasterKeyRotation } from './master-key-rotation.js';

/**
 * Master key rotation across the owners of every table holding secrets (`MasterKeyRotation`);
 * the admin CLI's `master-key` commands run it. Not part of the HTTP service.
 */
@Module({
  imports: [WorkspaceModule, ApiKeysModule, ConfigsModule, MailModule],
  providers: [MasterKeyRotation],
  exports: [MasterKeyRotation],
})
export class RekeyModule {}
