import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import type { ItemResults } from '../common/batch.js';
import { ActivitiesService } from './activities.service.js';
import { AddActivitiesRequest, DeleteActivitiesRequest, GetActivitiesRequest, UpdateActivitiesRequest } from './dto/activity.dto.js';
import { ActivitiesResult } from './dto/activity.response.js';
import { ItemResultsResult } from '../common/openapi-responses.js';

/** The activity log (contract 6.1, rest-interface part 4). */
@ApiTags('activities')
@Controller()
export class ActivitiesController {
  constructor(private readonly activities: ActivitiesService) {}

  @Operation('/v2/activities/add', {
    summary: "Adds records to a document's activity log.",
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      activities: [
        {
          id: 'act-launch-approved',
          featureType: 'custom',
          actionType: 'launch.approved',
          actionUser: { userId: 'user-alice', name: 'Alice Martin', email: 'alice@acme.example' },
          targetEntityId: 'ann-launch-date',
          displayMessageTemplate: '{{actionUser.name}} approved the September launch',
          entityData: { decision: 'approved', reasoning: 'A September launch works once QA signs off.', contentType: 'launch-date' },
          metadata: { source: 'review-bot' },
        },
        {
          id: 'act-launch-endorsed',
          featureType: 'custom',
          actionType: 'launch.endorsed',
          actionUser: { userId: 'user-bob', name: 'Bob Chen' },
          targetEntityId: 'ann-launch-date',
          entityData: { decision: 'endorse', reasoning: 'A September launch keeps the marketing window.', contentType: 'launch-date' },
        },
        { id: 'act-roadmap-typo', featureType: 'custom', actionType: 'roadmap.edited', actionUser: { userId: 'user-bob' }, targetEntityId: 'doc-roadmap' },
      ],
    },
    auth: 'apiKey',
    message: 'Activity(s) added successfully.',
    response: ItemResultsResult,
  })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddActivitiesRequest): Promise<ItemResults> {
    return this.activities.add(caller, data);
  }

  @Operation('/v2/activities/get', {
    summary: "Reads an organization's activity records, filtered, a page at a time (newest first).",
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', featureTypes: ['custom'] },
    auth: 'apiKey',
    message: 'Activity(s) retrieved successfully.',
    result: 'fields',
    response: ActivitiesResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetActivitiesRequest): ReturnType<ActivitiesService['get']> {
    return this.activities.get(caller, data);
  }

  @Operation('/v2/activities/update', {
    summary: 'Changes the updatable fields of activity records.',
    example: {
      organizationId: 'org-acme',
      activities: [{ id: 'act-launch-approved', displayMessageTemplate: '{{actionUser.name}} approved the September launch date' }],
    },
    auth: 'apiKey',
    message: 'Activity(s) updated successfully.',
    response: ItemResultsResult,
  })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateActivitiesRequest): Promise<ItemResults> {
    return this.activities.update(caller, data);
  }

  @Operation('/v2/activities/delete', {
    summary: 'Deletes activity records by id, or every record of a document or entity.',
    example: { organizationId: 'org-acme', activityIds: ['act-roadmap-typo'] },
    auth: 'apiKey',
    message: 'Activity(s) deleted successfully.',
    response: ItemResultsResult,
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteActivitiesRequest): Promise<ItemResults> {
    return this.activities.delete(caller, data);
  }
}
