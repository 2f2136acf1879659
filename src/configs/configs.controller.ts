import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { EmptyRequest } from '../common/empty-request.dto.js';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { ConfigsService } from './configs.service.js';
import { UpdateAdvancedWebhookConfigRequest, UpdateEmailConfigRequest, UpdateNotificationConfigRequest, UpdateWebhookConfigRequest } from './dto/config.dto.js';
import { CreateEndpointRequest, EndpointIdRequest, ListEndpointsRequest, UpdateEndpointRequest } from './dto/endpoint.dto.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';

/** The API key's delivery configs and advanced webhook endpoints (contract part 3). */
@ApiTags('configs')
@Controller()
export class ConfigsController {
  constructor(
    private readonly configs: ConfigsService,
    private readonly endpoints: WebhookEndpointsService,
  ) {}

  @Operation('/v2/workspace/emailconfig/get', { auth: 'apiKey', message: 'Email configuration retrieved successfully.' })
  getEmail(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest) {
    return this.configs.getEmail(caller);
  }

  @Operation('/v2/workspace/emailconfig/update', { auth: 'apiKey', message: 'Email configuration updated successfully.' })
  updateEmail(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateEmailConfigRequest) {
    return this.configs.updateEmail(caller, data);
  }

  @Operation('/v2/workspace/webhookconfig/get', { auth: 'apiKey', message: 'Webhook configuration retrieved successfully.' })
  getWebhook(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest) {
    return this.configs.getWebhook(caller);
  }

  @Operation('/v2/workspace/webhookconfig/update', { auth: 'apiKey', message: 'Webhook configuration updated successfully.' })
  updateWebhook(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateWebhookConfigRequest) {
    return this.configs.updateWebhook(caller, data);
  }

  @Operation('/v2/workspace/notificationconfig/get', { auth: 'apiKey', message: 'Notification configuration retrieved successfully.' })
  getNotification(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest) {
    return this.configs.getNotification(caller);
  }

  @Operation('/v2/workspace/notificationconfig/update', { auth: 'apiKey', message: 'Notification configuration updated successfully.' })
  updateNotification(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateNotificationConfigRequest) {
    return this.configs.updateNotification(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhookconfig/get', { auth: 'apiKey', message: 'Advanced webhook configuration retrieved successfully.' })
  getAdvanced(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest) {
    return this.configs.getAdvanced(caller);
  }

  @Operation('/v2/workspace/advancedwebhookconfig/update', { auth: 'apiKey', message: 'Advanced webhook configuration updated successfully.' })
  updateAdvanced(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateAdvancedWebhookConfigRequest) {
    return this.configs.updateAdvanced(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/create', { auth: 'apiKey', message: 'Advanced webhook endpoint created successfully.' })
  createEndpoint(@ApiKeyPrincipal() caller: Caller, @RequestData() data: CreateEndpointRequest) {
    return this.endpoints.create(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/get', { auth: 'apiKey', message: 'Advanced webhook endpoints retrieved successfully.' })
  listEndpoints(@ApiKeyPrincipal() caller: Caller, @RequestData() data: ListEndpointsRequest) {
    return this.endpoints.list(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/update', { auth: 'apiKey', message: 'Advanced webhook endpoint updated successfully.' })
  updateEndpoint(@ApiKeyPrincipal() caller: Caller, @RequestData() data: UpdateEndpointRequest) {
    return this.endpoints.update(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/secret/get', { auth: 'apiKey', message: 'Advanced webhook endpoint secret retrieved successfully.' })
  endpointSecret(@ApiKeyPrincipal() caller: Caller, @RequestData() data: EndpointIdRequest) {
    return this.endpoints.secret(caller, data.endpointId);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/delete', { auth: 'apiKey', message: 'Advanced webhook endpoint deleted successfully.' })
  deleteEndpoint(@ApiKeyPrincipal() caller: Caller, @RequestData() data: EndpointIdRequest) {
    return this.endpoints.delete(caller, data.endpointId);
  }
}
