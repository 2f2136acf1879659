import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DirectoryModule } from '../directory/directory.module.js';
import { Memberships } from '../directory/memberships.js';
import { AccessContextEntity } from './entities/access-context.entity.js';
import { GrantEntity } from './entities/grant.entity.js';
import { GrantRepository } from './grant.repository.js';

/**
 * Grants and access context (`GrantRepository`), in a module of their own. Access depends on
 * directory and directory never imports access, yet directory's users operations need
 * memberships, which are grants: directory declares what it needs (`Memberships`) and this
 * module binds it to `GrantRepository`. It is global so that `DirectoryModule` finds the binding
 * without importing this module (which would be the cycle again).
 */
@Global()
@Module({
  imports: [DirectoryModule, TypeOrmModule.forFeature([GrantEntity, AccessContextEntity])],
  providers: [GrantRepository, { provide: Memberships, useExisting: GrantRepository }],
  exports: [GrantRepository, Memberships],
})
export class GrantsModule {}
