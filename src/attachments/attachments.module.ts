import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module.js';
import { CommentsModule } from '../comments/comments.module.js';
import { AppConfig } from '../config/app-config.js';
import { ApiKeysModule } from '../workspace/api-keys.module.js';
import { AttachmentStore } from './attachment-store.js';
import { AttachmentsController } from './attachments.controller.js';
import { AttachmentsService } from './attachments.service.js';
import { BlobStore, blobStoreFor } from './blob-store.js';

/** Files attached to comments: uploads, download links, and the blob store (disk or S3). */
@Module({
  imports: [CommentsModule, DirectoryModule, ApiKeysModule],
  controllers: [AttachmentsController],
  providers: [AttachmentStore, AttachmentsService, { provide: BlobStore, useFactory: blobStoreFor, inject: [AppConfig] }],
  exports: [AttachmentsService],
})
export class AttachmentsModule {}
