import { Module } from '@nestjs/common';
import { GrantsModule } from '../access/grants.module.js';
import { ActivityModule } from '../activity/activity.module.js';
import { AttachmentsModule } from '../attachments/attachments.module.js';
import { CommentsModule } from '../comments/comments.module.js';
import { CrdtModule } from '../crdt/crdt.module.js';
import { DirectoryModule } from '../directory/directory.module.js';
import { DeliveryModule } from '../delivery/delivery.module.js';
import { InboxModule } from '../inbox/inbox.module.js';
import { LiveModule } from '../live/live.module.js';
import { MemoryModule } from '../memory/memory.module.js';
import { DeletionJobStore } from './deletion-job-store.js';
import { DeletionWorker } from './deletion-worker.js';
import { PrivacyController } from './privacy.controller.js';
import { PrivacyService } from './privacy.service.js';
import { UserDataReader } from './user-data-reader.js';
import { UserErasure } from './user-erasure.js';

/**
 * A user's data across modules (upstream's GDPR operations): the export reads, and the erasure
 * writes, every table that holds data about a user, each through its owner: directory's
 * `UsersService`, `DirectoryUserStore` and `UserGroupStore`, `GrantStore`, `NotificationPreferenceStore`,
 * `CrdtStore`, `ActivityStore`, `JudgmentStore`, `CommentStore` and `InboxStore`.
 */
@Module({
  imports: [
    ActivityModule,
    GrantsModule,
    DirectoryModule,
    DeliveryModule,
    CrdtModule,
    MemoryModule,
    CommentsModule,
    InboxModule,
    LiveModule,
    AttachmentsModule,
  ],
  controllers: [PrivacyController],
  providers: [PrivacyService, UserDataReader, UserErasure, DeletionJobStore, DeletionWorker],
})
export class PrivacyModule {}
