import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import type { ItemResults } from '../common/batch.js';
import { GetOrganizationsRequest, OrganizationIdsRequest, OrganizationsDisableStateRequest, OrganizationsRequest } from './dto/organization.dto.js';
import { OrganizationsService } from './organizations.service.js';
import { OrganizationsResult } from './dto/organization.response.js';
import { ItemResultsResult } from '../common/openapi-responses.js';

/** Organizations (contract part 4). */
@ApiTags('organizations')
@Controller()
export class OrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Operation('/v2/organizations/add', {
    summary: 'Adds organizations, or updates the ones that exist; keys beyond the named fields are kept as metadata.',
    example: {
      organizations: [
        { organizationId: 'org-acme', organizationName: 'Acme Corp', plan: 'enterprise' },
        { organizationId: 'org-acme-sandbox', organizationName: 'Acme Sandbox' },
        { organizationId: 'org-acme-partners', organizationName: 'Acme Partners' },
      ],
    },
    aliasExamples: { '/v1/organizations/add': { organizations: [{ organizationId: 'org-acme-legacy', organizationName: 'Acme (legacy)' }] } },

    aliases: ['/v1/organizations/add'],
    auth: 'apiKey',
    message: 'Organization(s) added successfully.',
    response: ItemResultsResult,
  })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: OrganizationsRequest): Promise<ItemResults> {
    return this.organizations.add(caller, data.organizations);
  }

  @Operation('/v2/organizations/get', {
    summary: 'Reads organizations by id, or all of them a page at a time.',
    example: { organizationIds: ['org-acme', 'org-acme-partners'] },

    aliases: ['/v1/organizations/get'],
    auth: 'apiKey',
    message: 'Organization(s) retrieved successfully.',
    result: 'fields',
    response: OrganizationsResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetOrganizationsRequest): ReturnType<OrganizationsService['get']> {
    return this.organizations.get(caller, data);
  }

  @Operation('/v2/organizations/update', {
    summary: 'Changes existing organizations (name, disabled, metadata); an unknown id fails on its own.',
    example: { organizations: [{ organizationId: 'org-acme', organizationName: 'Acme Corporation', plan: 'enterprise' }] },

    aliases: ['/v1/organizations/update'],
    auth: 'apiKey',
    message: 'Organization(s) updated successfully.',
    response: ItemResultsResult,
  })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: OrganizationsRequest): Promise<ItemResults> {
    return this.organizations.update(caller, data.organizations);
  }

  @Operation('/v2/organizations/delete', {
    summary: 'Deletes organizations with everything in them.',
    example: { organizationIds: ['org-acme-sandbox'] },
    aliasExamples: { '/v1/organizations/delete': { organizationIds: ['org-acme-legacy'] } },

    aliases: ['/v1/organizations/delete'],
    auth: 'apiKey',
    message: 'Organization(s) deleted successfully.',
    response: ItemResultsResult,
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: OrganizationIdsRequest): Promise<ItemResults> {
    return this.organizations.delete(caller, data.organizationIds);
  }

  @Operation('/v2/organizations/access/disablestate/update', {
    summary: 'Disables organizations (access to them is denied) or enables them again.',
    example: { organizationIds: ['org-acme-partners'], disabled: true },

    aliases: ['/v1/organizations/access/disablestate/update'],
    auth: 'apiKey',
    message: 'Updated disable state for Organization(s) successfully.',
    response: ItemResultsResult,
  })
  setDisabled(@ApiKeyPrincipal() caller: Caller, @RequestData() data: OrganizationsDisableStateRequest): Promise<ItemResults> {
    return this.organizations.setDisabled(caller, data.organizationIds, data.disabled);
  }
}
