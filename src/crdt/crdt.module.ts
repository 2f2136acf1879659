import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module.js';
import { CrdtController } from './crdt.controller.js';
import { CrdtService } from './crdt.service.js';
import { CrdtStore } from './crdt-store.js';

/** Shared-editing content (contract part 7). The event pipeline observes writes through `CrdtStore`. */
@Module({
  imports: [DirectoryModule],
  controllers: [CrdtController],
  providers: [CrdtService, CrdtStore],
  exports: [CrdtStore, CrdtService],
})
export class CrdtModule {}
