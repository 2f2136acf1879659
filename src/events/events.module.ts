import { Module } from '@nestjs/common';
import { ConfigsModule } from '../configs/configs.module.js';
import { NotificationPreferencesService } from './notification-preferences.service.js';
import { NotificationsController } from './notifications.controller.js';

/** Events and what decides their delivery: for now, users' notification preferences (contract 6.4). */
@Module({
  imports: [ConfigsModule],
  controllers: [NotificationsController],
  providers: [NotificationPreferencesService],
  exports: [NotificationPreferencesService],
})
export class EventsModule {}
