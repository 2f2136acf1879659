import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import { withResultFields, type ResultFields } from '../common/envelope.js';
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

  @Operation('/v2/activities/add', { auth: 'apiKey', message: 'Activity(s) added successfully.', response: ItemResultsResult })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddActivitiesRequest): Promise<ItemResults> {
    return this.activities.add(caller, data);
  }

  @Operation('/v2/activities/get', { auth: 'apiKey', message: 'Activity(s) retrieved successfully.', response: ActivitiesResult })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetActivitiesRequest): Promise<ResultFields> {
    return this.activities.get(caller, data).then((page) => withResultFields(page.activities, { pageToken: page.pageToken }));
  }

  @Operation('/v2/activities/update', { auth: 'apiKey', message: 'Activity(s) updated successfully.', response: ItemResultsResult })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateActivitiesRequest): Promise<ItemResults> {
    return this.activities.update(caller, data);
  }

  @Operation('/v2/activities/delete', { auth: 'apiKey', message: 'Activity(s) deleted successfully.', response: ItemResultsResult })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteActivitiesRequest): Promise<ItemResults> {
    return this.activities.delete(caller, data);
  }
}
