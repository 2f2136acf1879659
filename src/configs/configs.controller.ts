import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { EmptyRequest } from '../common/empty-request.dto.js';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { ActivityConfigService, type ActivityConfigView } from './activity-config.service.js';
import { type ApiKeyConfigEcho, ApiKeyConfigService, type ApiKeyConfigView } from './api-key-config.service.js';
import { ConfigsService } from './configs.service.js';
import {
  UpdateActivityConfigRequest,
  UpdateAdvancedWebhookConfigRequest,
  UpdateApiKeyConfigRequest,
  UpdateEmailConfigRequest,
  UpdateNotificationConfigRequest,
  UpdateWebhookConfigRequest,
} from './dto/config.dto.js';
import { CreateEndpointRequest, EndpointIdRequest, ListEndpointsRequest, RotateEndpointSecretRequest, UpdateEndpointRequest } from './dto/endpoint.dto.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import {
  ActivityConfigResult,
  AdvancedWebhookConfigResult,
  ApiKeyConfigEchoResult,
  ApiKeyConfigResult,
  EmailConfigResult,
  NotificationConfigResult,
  WebhookConfigResult,
} from './dto/config.response.js';
import { EndpointDeletedResult, EndpointResult, EndpointSecretResult, EndpointsPageResult, RotatedSecretResult } from './dto/endpoint.response.js';
import { ADVANCED_OFF, ConfigErrors } from './configs.errors.js';

/** The API key's delivery configs and advanced webhook endpoints (contract part 3). */
@ApiTags('configs')
@Controller()
export class ConfigsController {
  constructor(
    private readonly configs: ConfigsService,
    private readonly endpoints: WebhookEndpointsService,
    private readonly keyConfig: ApiKeyConfigService,
    private readonly activityConfig: ActivityConfigService,
  ) {}

  /** Upstream's apikeyconfig pair (its legacy apikeymetadata paths too). */
  @Operation('/v2/workspace/apikeyconfig/get', {
    summary: "Reads the API key's settings: private comments, JWT requirement, default document access, AI model keys, attachment limits.",

    aliases: ['/v2/workspace/apikeymetadata/get'],
    auth: 'apiKey',
    message: 'API key metadata retrieved successfully.',
    response: ApiKeyConfigResult,
  })
  getApiKeyConfig(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest): Promise<ApiKeyConfigView> {
    return this.keyConfig.get(caller);
  }

  @Operation('/v2/workspace/apikeyconfig/update', {
    summary: "Changes some of the API key's settings; the fields sent are merged into the stored ones.",
    example: { enablePrivateComments: true, attachmentConfig: { maxBytes: 10485760, types: ['image/*', 'application/pdf', 'text/plain'] } },

    aliases: ['/v2/workspace/apikeymetadata/update'],
    auth: 'apiKey',
    message: 'API key configuration updated successfully.',
    response: ApiKeyConfigEchoResult,
  })
  updateApiKeyConfig(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateApiKeyConfigRequest): Promise<ApiKeyConfigEcho> {
    return this.keyConfig.update(caller, data);
  }

  /** Upstream's activity logs configuration pair. */
  @Operation('/v2/workspace/activityconfig/get', {
    summary: "Reads the API key's activity log settings.",

    auth: 'apiKey',
    message: 'Activity logs configuration retrieved successfully.',
    response: ActivityConfigResult,
  })
  getActivityConfig(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest): Promise<ActivityConfigView> {
    return this.activityConfig.get(caller);
  }

  @Operation('/v2/workspace/activityconfig/update', {
    summary: "Changes the API key's activity log settings (deep-merged).",
    example: { activityServiceConfig: { isEnabled: true, immutable: false, triggers: { comment: { 'comment.add': true, 'comment_annotation.add': true } } } },

    auth: 'apiKey',
    message: 'Activity logs configuration updated successfully.',
    response: ActivityConfigResult,
  })
  updateActivityConfig(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateActivityConfigRequest): Promise<ActivityConfigView> {
    return this.activityConfig.update(caller, data);
  }

  @Operation('/v2/workspace/emailconfig/get', {
    summary: "Reads the API key's e-mail notification settings.",
    auth: 'apiKey',
    message: 'Email configuration retrieved successfully.',
    response: EmailConfigResult,
  })
  getEmail(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest) {
    return this.configs.getEmail(caller);
  }

  @Operation('/v2/workspace/emailconfig/update', {
    summary: 'Turns e-mail notifications on or off and changes their settings.',
    example: { useEmailService: true, emailServiceConfig: { type: 'default', fromCompany: 'Acme', triggers: { 'comment.add': true } } },
    auth: 'apiKey',
    message: 'Email configuration updated successfully.',
    response: EmailConfigResult,
  })
  updateEmail(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateEmailConfigRequest) {
    return this.configs.updateEmail(caller, data);
  }

  @Operation('/v2/workspace/webhookconfig/get', {
    summary: "Reads the API key's basic webhook settings.",
    auth: 'apiKey',
    message: 'Webhook configuration retrieved successfully.',
    response: WebhookConfigResult,
  })
  getWebhook(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest) {
    return this.configs.getWebhook(caller);
  }

  @Operation('/v2/workspace/webhookconfig/update', {
    summary: 'Turns basic webhooks on or off and changes where and how they are sent.',
    example: {
      useWebhookService: true,
      webhookServiceConfig: { rawNotificationUrl: 'https://hooks.acme.example/collab/raw', triggers: { 'comment.add': true } },
    },
    auth: 'apiKey',
    message: 'Webhook configuration updated successfully.',
    response: WebhookConfigResult,
  })
  updateWebhook(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateWebhookConfigRequest) {
    return this.configs.updateWebhook(caller, data);
  }

  @Operation('/v2/workspace/notificationconfig/get', {
    summary: "Reads the API key's in-app notification settings.",

    auth: 'apiKey',
    message: 'Notification configuration retrieved successfully.',
    response: NotificationConfigResult,
  })
  getNotification(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest) {
    return this.configs.getNotification(caller);
  }

  @Operation('/v2/workspace/notificationconfig/update', {
    summary: 'Turns in-app notifications on or off and changes their triggers.',
    example: { useNotificationService: true, notificationServiceConfig: { triggers: { comment: { 'comment.add': true, 'comment_annotation.add': true } } } },

    auth: 'apiKey',
    message: 'Notification configuration updated successfully.',
    response: NotificationConfigResult,
  })
  updateNotification(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateNotificationConfigRequest) {
    return this.configs.updateNotification(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhookconfig/get', {
    summary: "Reads the API key's advanced webhook settings.",

    auth: 'apiKey',
    message: 'Advanced webhook configuration retrieved successfully.',
    response: AdvancedWebhookConfigResult,
    errors: [ConfigErrors.advancedUnavailable()],
  })
  getAdvanced(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest) {
    return this.configs.getAdvanced(caller);
  }

  @Operation('/v2/workspace/advancedwebhookconfig/update', {
    summary: 'Turns advanced webhooks (signed deliveries to endpoints, with retries and a message log) on or off.',
    example: { isEnabled: true },

    auth: 'apiKey',
    message: 'Advanced webhook configuration updated successfully.',
    response: AdvancedWebhookConfigResult,
    errors: [ConfigErrors.advancedUnavailable(), ConfigErrors.advancedNotConfigured()],
  })
  updateAdvanced(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateAdvancedWebhookConfigRequest) {
    return this.configs.updateAdvanced(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/create', {
    summary: 'Creates an advanced webhook endpoint: a URL receiving signed deliveries of the events it filters.',
    example: {
      url: 'https://hooks.acme.example/collab',
      description: 'Acme production receiver',
      filterTypes: ['comment.add', 'comment_annotation.add'],
      uid: 'acme-production',
    },

    auth: 'apiKey',
    message: 'Advanced webhook endpoint created successfully.',
    response: EndpointResult,
    errors: [...ADVANCED_OFF, ConfigErrors.endpointUidTaken()],
  })
  createEndpoint(@ApiKeyPrincipal() caller: Caller, @RequestData() data: CreateEndpointRequest) {
    return this.endpoints.create(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/get', {
    summary: 'Lists the advanced webhook endpoints, a page at a time, in creation order.',
    example: { limit: 20 },

    auth: 'apiKey',
    message: 'Advanced webhook endpoints retrieved successfully.',
    response: EndpointsPageResult,
    errors: ADVANCED_OFF,
  })
  listEndpoints(@ApiKeyPrincipal() caller: Caller, @RequestData() data: ListEndpointsRequest) {
    return this.endpoints.list(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/update', {
    summary: 'Changes an advanced webhook endpoint; `null` clears an optional field.',
    example: { endpointId: 'ep_01JDQ2Y3Z4A5B6C7D8E9F0G1H2', description: 'Acme production receiver (rate-limited)', rateLimit: 10 },
    exampleFrom: { '/endpointId': { operation: '/v2/workspace/advancedwebhook/endpoints/create', answer: '/result/data/id' } },

    auth: 'apiKey',
    message: 'Advanced webhook endpoint updated successfully.',
    response: EndpointResult,
    errors: [...ADVANCED_OFF, ConfigErrors.endpointMissing()],
  })
  updateEndpoint(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateEndpointRequest) {
    return this.endpoints.update(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/secret/get', {
    summary: "Reads an advanced webhook endpoint's signing secret.",
    example: { endpointId: 'ep_01JDQ2Y3Z4A5B6C7D8E9F0G1H2' },
    exampleFrom: { '/endpointId': { operation: '/v2/workspace/advancedwebhook/endpoints/create', answer: '/result/data/id' } },

    auth: 'apiKey',
    message: 'Advanced webhook endpoint secret retrieved successfully.',
    response: EndpointSecretResult,
    errors: [...ADVANCED_OFF, ConfigErrors.endpointMissing()],
  })
  endpointSecret(@ApiKeyPrincipal() caller: Caller, @RequestData() data: EndpointIdRequest) {
    return this.endpoints.secret(caller, data.endpointId);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/secret/rotate', {
    summary: 'Gives an advanced webhook endpoint a new signing secret; the old one keeps signing beside it for `overlapSeconds`.',
    example: { endpointId: 'ep_01JDQ2Y3Z4A5B6C7D8E9F0G1H2', overlapSeconds: 3600 },
    exampleFrom: { '/endpointId': { operation: '/v2/workspace/advancedwebhook/endpoints/create', answer: '/result/data/id' } },

    auth: 'apiKey',
    message: 'Advanced webhook endpoint secret rotated successfully.',
    response: RotatedSecretResult,
    errors: [...ADVANCED_OFF, ConfigErrors.endpointMissing()],
  })
  rotateEndpointSecret(@ApiKeyPrincipal() caller: Caller, @RequestData() data: RotateEndpointSecretRequest) {
    return this.endpoints.rotateSecret(caller, data.endpointId, data.overlapSeconds);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/delete', {
    summary: 'Deletes an advanced webhook endpoint; its pending deliveries are cancelled.',
    example: { endpointId: 'ep_01JDQ2Y3Z4A5B6C7D8E9F0G1H2' },
    exampleFrom: { '/endpointId': { operation: '/v2/workspace/advancedwebhook/endpoints/create', answer: '/result/data/id' } },
    listedAfter: '/v2/workspace/advancedwebhook/health/get',

    auth: 'apiKey',
    message: 'Advanced webhook endpoint deleted successfully.',
    response: EndpointDeletedResult,
    errors: [...ADVANCED_OFF, ConfigErrors.endpointMissing()],
  })
  deleteEndpoint(@ApiKeyPrincipal() caller: Caller, @RequestData() data: EndpointIdRequest) {
    return this.endpoints.delete(caller, data.endpointId);
  }
}
