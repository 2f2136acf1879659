import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module.js';
import { ApiKeysModule } from '../workspace/api-keys.module.js';
import { AccessController } from './access.controller.js';
import { AccessService } from './access.service.js';
import { GrantsModule } from './grants.module.js';

/** Grants and permission resolution (contract part 5). */
@Module({
  imports: [DirectoryModule, GrantsModule, ApiKeysModule],
  controllers: [AccessController],
  providers: [AccessService],
  exports: [AccessService],
})
export class AccessModule {}
