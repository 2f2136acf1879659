import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module.js';
import { CrdtModule } from '../crdt/crdt.module.js';
import { ApiKeysModule } from '../workspace/api-keys.module.js';
import { WorkspaceModule } from '../workspace/workspace.module.js';
import { LiveEditing } from './live-editing.js';
import { LiveStateController } from './live-state.controller.js';

/** Live shared editing over WebSocket (`LiveEditing`), on the stored editors of `crdt/`. */
@Module({
  imports: [CrdtModule, AccessModule, WorkspaceModule, ApiKeysModule],
  controllers: [LiveStateController],
  providers: [LiveEditing],
  exports: [LiveEditing],
})
export class LiveModule {}
