import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysModule } from '../workspace/api-keys.module.js';
import { DirectoryDeletes } from './directory-deletes.js';
import { DocumentMigrationService } from './document-migration.service.js';
import { DocumentMigrationStore } from './document-migration-store.js';
import { DocumentMoves } from './document-moves.js';
import { DocumentsController } from './documents.controller.js';
import { DocumentStore } from './document-store.js';
import { DocumentsService } from './documents.service.js';
import { DirectoryUserEntity } from './entities/directory-user.entity.js';
import { DocumentEntity } from './entities/document.entity.js';
import { FolderEntity } from './entities/folder.entity.js';
import { OrganizationEntity } from './entities/organization.entity.js';
import { UserGroupMemberEntity } from './entities/user-group-member.entity.js';
import { UserGroupEntity } from './entities/user-group.entity.js';
import { FoldersController } from './folders.controller.js';
import { FolderStore } from './folder-store.js';
import { FoldersService } from './folders.service.js';
import { OrganizationsController } from './organizations.controller.js';
import { OrganizationStore } from './organization-store.js';
import { OrganizationsService } from './organizations.service.js';
import { UserGroupStore } from './user-group-store.js';
import { UserGroupsService } from './user-groups.service.js';
import { UsersController } from './users.controller.js';
import { DirectoryUserStore } from './directory-user-store.js';
import { UsersService } from './users.service.js';

/** Organizations, folders, documents, users and groups a product mirrors into the service (contract part 4). */
@Module({
  imports: [
    TypeOrmModule.forFeature([OrganizationEntity, FolderEntity, DocumentEntity, DirectoryUserEntity, UserGroupEntity, UserGroupMemberEntity]),
    ApiKeysModule,
  ],
  controllers: [OrganizationsController, FoldersController, DocumentsController, UsersController],
  providers: [
    OrganizationStore,
    OrganizationsService,
    FolderStore,
    FoldersService,
    DocumentStore,
    DocumentsService,
    DirectoryUserStore,
    UsersService,
    UserGroupStore,
    UserGroupsService,
    DirectoryDeletes,
    DocumentMoves,
    DocumentMigrationStore,
    DocumentMigrationService,
  ],
  exports: [
    OrganizationStore,
    FolderStore,
    FoldersService,
    DocumentStore,
    DocumentsService,
    UsersService,
    DirectoryUserStore,
    UserGroupStore,
    DirectoryDeletes,
    DocumentMoves,
  ],
})
export class DirectoryModule {}
