import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module.js';
import { ActivityModule } from '../activity/activity.module.js';
import { DirectoryModule } from '../directory/directory.module.js';
import { DeliveryModule } from '../delivery/delivery.module.js';
import { InboxModule } from '../inbox/inbox.module.js';
import { CommentAnnotationsService } from './comment-annotations.service.js';
import { CommentEvents } from './comment-events.js';
import { CommentStore } from './comment-store.js';
import { CommentsController } from './comments.controller.js';
import { CommentsService } from './comments.service.js';
import { ReactionsService } from './reactions.service.js';

/** Comment threads: annotations and their comments, each write an event through the activity pipeline. */
@Module({
  imports: [DirectoryModule, AccessModule, ActivityModule, DeliveryModule, InboxModule],
  controllers: [CommentsController],
  providers: [CommentStore, CommentEvents, CommentAnnotationsService, CommentsService, ReactionsService],
  exports: [CommentStore],
})
export class CommentsModule {}
