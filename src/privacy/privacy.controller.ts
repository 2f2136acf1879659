import { Controller, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import type { DeletionStatus } from './deletion-job-store.js';
import { DeleteUserDataRequest, DeleteUserDataStatusRequest, GetUserDataRequest } from './dto/user-data.dto.js';
import { DeletionJobResult, DeletionStatusResult, UserDataResult } from './dto/user-data.response.js';
import { PrivacyService } from './privacy.service.js';
import { linkBaseUrl, type AdapterRequest } from '../attachments/link-base-url.js';
import { AppConfig } from '../config/app-config.js';
import { PrivacyErrors } from './privacy.errors.js';

const DATA_FETCHED = 'Data fetched successfully.';

/**
 * Upstream's GDPR operations: export everything held about a user, and erase it in a background
 * job. The job's answer stays inside the success envelope with HTTP 200 (contract 1.2), where
 * upstream answers its fields unwrapped with 202.
 */
@ApiTags('user data')
@Controller()
export class PrivacyController {
  constructor(
    private readonly privacy: PrivacyService,
    private readonly config: AppConfig,
  ) {}

  @Operation('/v2/users/data/get', {
    summary: 'Exports everything held about a user in an organization, a page at a time.',
    example: { organizationId: 'org-acme', userId: 'user-alice' },
    aliases: ['/v1/users/data/get'],
    auth: 'apiKey',
    message: DATA_FETCHED,
    result: 'fields',
    response: UserDataResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetUserDataRequest, @Req() request: AdapterRequest): ReturnType<PrivacyService['get']> {
    return this.privacy.get(caller, data, linkBaseUrl(this.config, request));
  }

  @Operation('/v2/users/data/delete', {
    summary: "Starts a background job erasing users' data (all of it, or within some organizations).",
    example: { userIds: ['user-dan'], organizationIds: ['org-acme'] },
    aliasExamples: { '/v1/users/data/delete': { userIds: ['user-erin'] } },

    aliases: ['/v1/users/data/delete'],
    auth: 'apiKey',
    message: 'Data deletion process has been initiated.',
    response: DeletionJobResult,
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteUserDataRequest): Promise<{ jobId: string; tasksCount: number }> {
    return this.privacy.startDeletion(caller, data);
  }

  @Operation('/v2/users/data/delete/status', {
    summary: 'Reads the progress of a data deletion job.',
    example: { jobId: 'job_01JDQ5C6D7E8F9G0H1J2K3L4M5' },
    exampleFrom: { '/jobId': { operation: '/v2/users/data/delete', answer: '/result/data/jobId' } },

    aliases: ['/v1/users/data/delete/status'],
    auth: 'apiKey',
    message: DATA_FETCHED,
    response: DeletionStatusResult,
    errors: [PrivacyErrors.jobNotFound()],
  })
  status(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteUserDataStatusRequest): Promise<DeletionStatus> {
    return this.privacy.status(caller, data);
  }
}
