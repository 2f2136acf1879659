import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DirectoryModule } from '../directory/directory.module.js';
import { Memberships } from '../directory/memberships.js';
import { AccessContextEntity } from './entities/access-context.entity.js';
import { GrantEntity } from './entities/grant.entity.js';
import { GrantStore } from './grant-store.js';

/**
 * Grants and access context (`GrantStore`), in a module of their own. Access depends on
 * directory and directory never imports access, yet directory's users operations need
 * memberships, which are grants: directory declares what it needs (`Memberships`) and this
 * module binds it to `GrantStore`. It is global so that `DirectoryModule` finds the binding
 * without importing this module (which would be the cycle again).
 */
@Global()
@Module({
  imports: [DirectoryModule, TypeOrmModule.forFeature([GrantEntity, AccessContextEntity])],
  providers: [GrantStore, { provide: Memberships, useExisting: GrantStore }],
  exports: [GrantStore, Memberships],
})
export class GrantsModule {}
