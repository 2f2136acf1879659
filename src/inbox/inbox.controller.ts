import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { ItemResults } from '../common/batch.js';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import { ItemResultsResult } from '../common/openapi-responses.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import {
  AddNotificationRequest,
  DeleteNotificationsRequest,
  GetNotificationsRequest,
  GetNotificationsV1Request,
  UpdateNotificationsRequest,
} from './dto/inbox.dto.js';
import { NotificationAddedResult, NotificationsResult } from './dto/inbox.response.js';
import { InboxMessages, InboxService } from './inbox.service.js';
import { DirectoryErrors } from '../directory/directory.errors.js';

const NOTIFICATIONS_RETRIEVED = 'Notification(s) retrieved successfully.';

/** In-app notifications (upstream's `v2/notifications`, and its `v1` paths). */
@ApiTags('notifications')
@Controller()
export class InboxController {
  constructor(private readonly inbox: InboxService) {}

  @Operation('/v2/notifications/add', {
    summary: "Adds an in-app notification to the inboxes of a document's users.",
    example: {
      organizationId: 'org-acme',
      documentId: 'doc-roadmap',
      notificationId: 'notif-roadmap-review',
      actionUser: { userId: 'user-alice', name: 'Alice Martin', email: 'alice@acme.example' },
      displayHeadlineMessageTemplate: '{{actionUser}} asked you to review the roadmap',
      displayHeadlineMessageTemplateData: { actionUser: 'Alice Martin' },
      displayBodyMessage: 'Comments are due Friday.',
      notifyUsers: [{ userId: 'user-bob' }, { userId: 'user-carol' }],
      notifyAll: false,
    },
    aliasExamples: {
      '/v1/notifications/add': {
        organizationId: 'org-acme',
        documentId: 'doc-roadmap',
        notificationId: 'notif-standup-moved',
        actionUser: { userId: 'user-bob', name: 'Bob Chen' },
        displayHeadlineMessageTemplate: 'Stand-up moves to 10:00',
        displayBodyMessage: 'From Monday on.',
        notifyUsers: [{ userId: 'user-alice' }],
        notifyAll: false,
      },
    },

    aliases: ['/v1/notifications/add'],
    auth: 'apiKey',
    message: InboxMessages.added,
    response: NotificationAddedResult,
    errors: [DirectoryErrors.organizationMissing(), DirectoryErrors.documentMissing()],
  })
  add(@ApiKeyPrincipal() caller: Caller, @RequestData() data: AddNotificationRequest): ReturnType<InboxService['add']> {
    return this.inbox.add(caller, data);
  }

  @Operation('/v1/notifications/get', {
    summary: "Reads a document's or a user's notifications, all at once (v1).",
    example: { organizationId: 'org-acme', userId: 'user-bob' },
    auth: 'apiKey',
    message: NOTIFICATIONS_RETRIEVED,
    response: NotificationsResult,
  })
  getV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetNotificationsV1Request): Promise<unknown[]> {
    return this.inbox.getEveryPage(caller, data);
  }

  @Operation('/v2/notifications/get', {
    summary: "Reads a document's or a user's notifications, a page at a time.",
    example: { organizationId: 'org-acme', documentId: 'doc-roadmap', notificationIds: ['notif-roadmap-review'] },
    auth: 'apiKey',
    message: NOTIFICATIONS_RETRIEVED,
    result: 'fields',
    response: NotificationsResult,
  })
  get(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetNotificationsRequest): ReturnType<InboxService['get']> {
    return this.inbox.get(caller, data);
  }

  @Operation('/v2/notifications/update', {
    summary: 'Changes notifications, or marks them read for users.',
    example: { organizationId: 'org-acme', notifications: [{ id: 'notif-roadmap-review', readByUserIds: ['user-bob'] }] },

    aliases: ['/v1/notifications/update'],
    auth: 'apiKey',
    message: 'Notification(s) updated successfully.',
    response: ItemResultsResult,
  })
  update(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateNotificationsRequest): Promise<ItemResults> {
    return this.inbox.update(caller, data);
  }

  @Operation('/v2/notifications/delete', {
    summary: "Deletes notifications, or removes them from one user's inbox.",
    example: { organizationId: 'org-acme', notificationIds: ['notif-standup-moved'] },
    aliasExamples: { '/v1/notifications/delete': { organizationId: 'org-acme', userId: 'user-carol', notificationIds: ['notif-roadmap-review'] } },

    aliases: ['/v1/notifications/delete'],
    auth: 'apiKey',
    message: 'Notification(s) deleted successfully.',
    response: ItemResultsResult,
  })
  delete(@ApiKeyPrincipal() caller: Caller, @RequestData() data: DeleteNotificationsRequest): Promise<ItemResults> {
    return this.inbox.delete(caller, data);
  }
}
