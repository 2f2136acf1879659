import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { ItemResults } from '../common/batch.js';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import { withResultFields, type ResultFields } from '../common/envelope.js';
import { ItemResultsResult } from '../common/openapi-responses.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import {
  AddNotificationRequest,
  DeleteNotificationsRequest,
  GetNotificationsRequest,
  GetNotificationsV1Request,
  NotificationAddedResult,
  NotificationsResult,
  UpdateNotificationsRequest,
} from './dto/inbox.dto.js';
import { InboxMessages, InboxService } from './inbox.service.js';

const NOTIFICATIONS_RETRIEVED = 'Notification(s) retrieved successfully.';

/** In-app notifications (upstream's `v2/notifications`, and its `v1` paths). */
@ApiTags('notifications')
@Controller()
export class InboxController {
  constructor(private readonly inbox: InboxService) {}

  @Operation('/v2/notifications/add', {
    aliases: ['/v1/notifications/add'],
    auth: 'apiKey',
    message: InboxMessages.added,
    response: NotificationAddedResult,
    errors: ['NOT_FOUND'],
  })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddNotificationRequest): Promise<unknown> {
    return this.inbox.add(caller, data);
  }

  @Operation('/v1/notifications/get', { auth: 'apiKey', message: NOTIFICATIONS_RETRIEVED, response: NotificationsResult })
  getV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetNotificationsV1Request): Promise<unknown[]> {
    return this.inbox.getEveryPage(caller, data);
  }

  @Operation('/v2/notifications/get', { auth: 'apiKey', message: NOTIFICATIONS_RETRIEVED, response: NotificationsResult })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetNotificationsRequest): Promise<ResultFields> {
    return this.inbox.get(caller, data).then((page) => withResultFields(page.notifications, { pageToken: page.pageToken }));
  }

  @Operation('/v2/notifications/update', {
    aliases: ['/v1/notifications/update'],
    auth: 'apiKey',
    message: 'Notification(s) updated successfully.',
    response: ItemResultsResult,
  })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateNotificationsRequest): Promise<ItemResults> {
    return this.inbox.update(caller, data);
  }

  @Operation('/v2/notifications/delete', {
    aliases: ['/v1/notifications/delete'],
    auth: 'apiKey',
    message: 'Notification(s) deleted successfully.',
    response: ItemResultsResult,
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteNotificationsRequest): Promise<ItemResults> {
    return this.inbox.delete(caller, data);
  }
}
