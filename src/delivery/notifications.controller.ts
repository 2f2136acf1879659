import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { GetPreferencesV1Request, GetPreferencesV2Request, SetPreferencesV1Request, SetPreferencesV2Request, toV1Entries } from './dto/preferences.dto.js';
import { PreferencesResult, PreferencesSetResult, PreferencesV1Result } from './dto/preferences.response.js';
import { NotificationPreferencesService } from './notification-preferences.service.js';
import { ConfigErrors } from '../configs/configs.errors.js';

const FETCHED = 'User config fetched successfully.';
const SET = 'User config set successfully.';

/** Users' notification preferences (rest-interface part 4, contract 6.4). */
@ApiTags('notifications')
@Controller()
export class NotificationsController {
  constructor(private readonly preferences: NotificationPreferencesService) {}

  @Operation('/v1/notifications/config/get', {
    summary: "Reads a user's notification preferences for documents (v1: inbox and e-mail).",
    example: { organizationId: 'org-acme', userId: 'user-alice', documentIds: ['doc-roadmap'] },
    auth: 'apiKey',
    message: FETCHED,
    response: PreferencesV1Result,
    errors: [ConfigErrors.notificationServiceOff()],
  })
  getV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetPreferencesV1Request) {
    return this.preferences.get(caller, { ...data, withOrganization: false }).then(toV1Entries);
  }

  @Operation('/v2/notifications/config/get', {
    summary: "Reads a user's notification preferences for documents, and the organization-level default.",
    example: { organizationId: 'org-acme', userId: 'user-alice', documentIds: ['doc-roadmap'], getOrganizationConfig: true },
    auth: 'apiKey',
    message: FETCHED,
    response: PreferencesResult,
    errors: [ConfigErrors.notificationServiceOff()],
  })
  getV2(@ApiKeyPrincipal() caller: Caller, @RequestData() data: GetPreferencesV2Request) {
    return this.preferences.get(caller, { ...data, withOrganization: data.getOrganizationConfig === true || !data.documentIds?.length });
  }

  @Operation('/v1/notifications/config/set', {
    summary: "Sets users' notification preferences for documents (v1).",
    example: { organizationId: 'org-acme', userIds: ['user-alice'], documentIds: ['doc-roadmap'], config: { inbox: 'ALL', email: 'MINE' } },
    auth: 'apiKey',
    message: SET,
    response: PreferencesSetResult,
    errors: [ConfigErrors.notificationServiceOff()],
  })
  setV1(@ApiKeyPrincipal() caller: Caller, @RequestData() data: SetPreferencesV1Request) {
    return this.preferences.set(caller, data);
  }

  @Operation('/v2/notifications/config/set', {
    summary: "Sets users' notification preferences per channel, for documents or as the organization-level default.",
    example: { organizationId: 'org-acme', userIds: ['user-bob'], config: { inbox: 'ALL', email: 'MINE', chat: 'NONE' } },
    auth: 'apiKey',
    message: SET,
    response: PreferencesSetResult,
    errors: [ConfigErrors.notificationServiceOff()],
  })
  setV2(@ApiKeyPrincipal() caller: Caller, @RequestData() data: SetPreferencesV2Request) {
    return this.preferences.set(caller, data);
  }
}
