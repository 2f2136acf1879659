import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import type { JsonText } from '../common/envelope.js';
import { AccessService } from './access.service.js';
import { AddPermissionsRequest, ExplainPermissionRequest, GetPermissionsRequest, RemovePermissionsRequest } from './dto/permissions.dto.js';
import { PermissionExplainedResult, PermissionsResult } from './dto/permissions.response.js';
import type { GrantedBy } from './permission-world.js';
import type { PermissionEntry } from './resolve-permission.js';
import { NullDataResult } from '../common/openapi-responses.js';
import { AccessErrors } from './access.errors.js';
import { DirectoryErrors } from '../directory/directory.errors.js';

/** Permissions of users on organizations, folders and documents (contract part 5). */
@ApiTags('access')
@Controller()
export class AccessController {
  constructor(private readonly access: AccessService) {}

  @Operation('/v2/auth/permissions/get', {
    summary: "Resolves users' access to an organization and its folders and documents.",
    example: { organizationId: 'org-acme', userIds: ['user-alice', 'user-carol'], documentIds: ['doc-roadmap'] },

    auth: 'apiKey',
    message: 'User permissions retrieved successfully.',
    response: PermissionsResult,
    errors: [AccessErrors.organizationMissing()],
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetPermissionsRequest): Promise<JsonText> {
    return this.access.get(caller, data);
  }

  /** Behind the console's permission checker: may this user see this document, and through which grant? */
  @Operation('/v2/auth/permissions/explain', {
    summary: 'Explains whether a user may see a document or folder, and through which grant.',
    example: { organizationId: 'org-acme', userId: 'user-carol', documentId: 'doc-roadmap' },

    auth: 'apiKey',
    message: 'Permission explained successfully.',
    response: PermissionExplainedResult,
    errors: [AccessErrors.organizationMissing()],
  })
  explain(@ApiKeyPrincipal() caller: Caller, @RequestData() data: ExplainPermissionRequest): Promise<PermissionEntry & { grantedBy: GrantedBy }> {
    return this.access.explain(caller, data);
  }

  @Operation('/v2/auth/permissions/add', {
    summary: 'Grants a user access to organizations, folders or documents, optionally until a time.',
    example: {
      user: { userId: 'user-carol' },
      permissions: { resources: [{ type: 'document', id: 'doc-roadmap', organizationId: 'org-acme', accessRole: 'editor', expiresAt: 1924992000 }] },
    },
    auth: 'apiKey',
    message: 'Permissions added successfully.',
    response: NullDataResult,
    errors: [DirectoryErrors.folderNotFound()],
  })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddPermissionsRequest): Promise<null> {
    return this.access.add(caller, data);
  }

  @Operation('/v2/auth/permissions/remove', {
    summary: "Takes back a user's permissions on organizations, folders or documents.",
    example: { userId: 'user-carol', permissions: { resources: [{ type: 'document', id: 'doc-roadmap', organizationId: 'org-acme' }] } },
    auth: 'apiKey',
    message: 'Permissions removed successfully.',
    response: NullDataResult,
  })
  remove(@ApiKeyPrincipal() caller: Caller, @RequestData() data: RemovePermissionsRequest): Promise<null> {
    return this.access.remove(caller, data);
  }
}
