import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module.js';
import { DirectoryModule } from '../directory/directory.module.js';
import { DeliveryModule } from '../delivery/delivery.module.js';
import { InboxController } from './inbox.controller.js';
import { InboxStore } from './inbox-store.js';
import { InboxService } from './inbox.service.js';

/** In-app notifications: upstream's notifications operations, and the entries comment events make. */
@Module({
  imports: [DirectoryModule, AccessModule, DeliveryModule],
  controllers: [InboxController],
  providers: [InboxStore, InboxService],
  exports: [InboxService, InboxStore],
})
export class InboxModule {}
