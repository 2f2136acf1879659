import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { SuccessFlagResult } from '../common/openapi-responses.js';
import { DeletePresenceRequest, GetPresenceRequest, PresenceResult, PutPresenceRequest, type PresentUser } from './dto/presence.dto.js';
import { PresenceService } from './presence.service.js';

/** Upstream's presence operations, and a read of who is present (ours: upstream has none). */
@ApiTags('live')
@Controller()
export class PresenceController {
  constructor(private readonly presence: PresenceService) {}

  @Operation('/v2/presence/add', {
    summary: 'Marks users present in a document (a server entry, kept until it expires).',
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      users: [
        { userId: 'user-alice', name: 'Alice Martin', status: 'online' },
        { userId: 'user-bob', name: 'Bob Chen', status: 'online' },
      ],
    },
    auth: 'apiKey',
    message: 'Presence added successfully.',
    response: SuccessFlagResult,
  })
  async add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: PutPresenceRequest): Promise<{ success: boolean }> {
    await this.presence.add(caller.apiKeyId, data);
    return { success: true };
  }

  @Operation('/v2/presence/update', {
    summary: "Changes present users' entries (status, name, e-mail).",
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', users: [{ userId: 'user-bob', status: 'away' }] },
    auth: 'apiKey',
    message: 'Presence updated successfully.',
    response: SuccessFlagResult,
  })
  async update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: PutPresenceRequest): Promise<{ success: boolean }> {
    await this.presence.update(caller.apiKeyId, data);
    return { success: true };
  }

  @Operation('/v2/presence/delete', {
    summary: "Removes users' presence entries from a document.",
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', userIds: ['user-bob'] },
    auth: 'apiKey',
    message: 'Presence deleted successfully.',
    response: SuccessFlagResult,
  })
  async remove(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeletePresenceRequest): Promise<{ success: boolean }> {
    await this.presence.remove(caller.apiKeyId, data);
    return { success: true };
  }

  @Operation('/v2/presence/get', {
    summary: 'Lists who is present in a document: server entries and live connections.',
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap' },
    auth: 'apiKey',
    message: 'Presence retrieved successfully.',
    response: PresenceResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetPresenceRequest): Promise<PresentUser[]> {
    return this.presence.list(caller.apiKeyId, data);
  }
}
