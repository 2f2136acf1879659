import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module.js';
import { AccessController } from './access.controller.js';
import { AccessService } from './access.service.js';
import { GrantRepository } from './grant.repository.js';

/** Grants and permission resolution (contract part 5). */
@Module({
  imports: [DirectoryModule],
  controllers: [AccessController],
  providers: [AccessService, GrantRepository],
  exports: [AccessService],
})
export class AccessModule {}
