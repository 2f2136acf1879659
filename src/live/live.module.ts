import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module.js';
import { CrdtModule } from '../crdt/crdt.module.js';
import { DirectoryModule } from '../directory/directory.module.js';
import { ApiKeysModule } from '../workspace/api-keys.module.js';
import { WorkspaceModule } from '../workspace/workspace.module.js';
import { LiveEditing } from './live-editing.js';
import { LiveStateController } from './live-state.controller.js';
import { PresenceController } from './presence.controller.js';
import { PresenceService } from './presence.service.js';
import { PresenceStore } from './presence-store.js';

/**
 * Live shared editing over WebSocket (`LiveEditing`), on the stored editors of `crdt/`, and who
 * is present in a document (`PresenceService`, over `PresenceStore`, which erasure uses too).
 */
@Module({
  imports: [CrdtModule, AccessModule, DirectoryModule, WorkspaceModule, ApiKeysModule],
  controllers: [LiveStateController, PresenceController],
  providers: [LiveEditing, PresenceService, PresenceStore],
  exports: [LiveEditing, PresenceStore],
})
export class LiveModule {}
