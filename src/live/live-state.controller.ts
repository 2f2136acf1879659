import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { SuccessFlagResult } from '../common/openapi-responses.js';
import { BroadcastRequest } from './dto/broadcast.dto.js';
import { LiveEditing } from './live-editing.js';

/** Upstream's live state operations, over the live rooms. */
@ApiTags('live')
@Controller()
export class LiveStateController {
  constructor(private readonly live: LiveEditing) {}

  @Operation('/v2/livestate/broadcast', {
    summary: 'Sends live-state data to every live client of a document.',
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', liveStateDataId: 'review-mode', data: { enabled: true, by: 'user-alice' } },

    aliases: ['/v1/livestate/broadcast'],
    auth: 'apiKey',
    message: 'Event broadcasted successfully.',
    response: SuccessFlagResult,
  })
  broadcast(@ApiKeyPrincipal() caller: Caller, @RequestData() data: BroadcastRequest): { success: boolean } {
    this.live.broadcast(caller.apiKeyId, data);
    return { success: true };
  }
}
