import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module.js';
import { ActivityModule } from '../activity/activity.module.js';
import { ConfigsModule } from '../configs/configs.module.js';
import { CrdtModule } from '../crdt/crdt.module.js';
import { DirectoryModule } from '../directory/directory.module.js';
import { MailModule } from '../mail/mail.module.js';
import { ApiKeysModule } from '../workspace/api-keys.module.js';
import { WorkspaceModule } from '../workspace/workspace.module.js';
import { DeliveryHealthService } from './delivery-health.service.js';
import { DeliverySenders } from './delivery-senders.js';
import { DeliveryWorker } from './delivery-worker.js';
import { EventRecorder } from './event-recorder.js';
import { InboxAudience } from './inbox-audience.js';
import { MailAudience } from './mail-audience.js';
import { MailSender } from './mail-sender.js';
import { MessageLogController } from './message-log.controller.js';
import { MessageLogService } from './message-log.service.js';
import { NotificationPreferenceStore } from './notification-preference-store.js';
import { NotificationPreferencesService } from './notification-preferences.service.js';
import { NotificationRecipients } from './notification-recipients.js';
import { NotificationsController } from './notifications.controller.js';
import { MessageLogStore } from './message-log-store.js';
import { OutboxStore } from './outbox-store.js';
import { WebhookHttp } from './webhook-http.js';
import { WebhookSender } from './webhook-sender.js';

/**
 * Events and their delivery (contract 6.2–6.4): users' notification preferences, the outbox
 * that activity and CRDT writes fill (through `EventRecorder`), the worker that delivers it as
 * basic and advanced webhooks and as notification mail, the advanced webhook message log, and
 * the console's delivery health.
 */
@Module({
  imports: [ConfigsModule, ApiKeysModule, ActivityModule, CrdtModule, AccessModule, DirectoryModule, WorkspaceModule, MailModule],
  controllers: [NotificationsController, MessageLogController],
  providers: [
    NotificationPreferenceStore,
    NotificationPreferencesService,
    NotificationRecipients,
    OutboxStore,
    MessageLogStore,
    WebhookHttp,
    WebhookSender,
    MailAudience,
    InboxAudience,
    MailSender,
    DeliverySenders,
    DeliveryWorker,
    EventRecorder,
    MessageLogService,
    DeliveryHealthService,
  ],
  exports: [
    NotificationPreferenceStore,
    NotificationPreferencesService,
    NotificationRecipients,
    EventRecorder,
    OutboxStore,
    MessageLogStore,
    DeliveryWorker,
    InboxAudience,
  ],
})
export class DeliveryModule {}
