import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GrantEntity } from '../access/entities/grant.entity.js';
import { DocumentsController } from './documents.controller.js';
import { DocumentsService } from './documents.service.js';
import { DocumentEntity } from './entities/document.entity.js';
import { FolderEntity } from './entities/folder.entity.js';
import { OrganizationEntity } from './entities/organization.entity.js';
import { FoldersController } from './folders.controller.js';
import { FoldersService } from './folders.service.js';
import { OrganizationsController } from './organizations.controller.js';
import { OrganizationsService } from './organizations.service.js';

/** Organizations, folders and documents a product mirrors into the service (contract part 4). */
@Module({
  imports: [TypeOrmModule.forFeature([OrganizationEntity, FolderEntity, DocumentEntity, GrantEntity])],
  controllers: [OrganizationsController, FoldersController, DocumentsController],
  providers: [OrganizationsService, FoldersService, DocumentsService],
  exports: [OrganizationsService, FoldersService, DocumentsService],
})
export class DirectoryModule {}
