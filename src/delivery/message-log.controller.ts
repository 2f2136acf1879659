import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import type { ApiKeyPrincipal as Caller } from '../common/request-context.js';
import { EmptyRequest } from '../common/empty-request.dto.js';
import { DeliveryHealthService } from './delivery-health.service.js';
import { DeliveryHealthResult } from './dto/health.response.js';
import { ListMessagesRequest, RecoverMessagesRequest, RetryMessageRequest, TestMessageRequest } from './dto/messages.dto.js';
import { MessagesPageResult, MessageRetryResult, MessagesRecoveredResult, TestMessageResult } from './dto/messages.response.js';
import { MessageLogService } from './message-log.service.js';
import { ADVANCED_OFF, ConfigErrors } from '../configs/configs.errors.js';
import { MessageErrors } from './delivery.errors.js';

/** The advanced webhook message log and replay (contract 6.3), and the console's delivery tools. */
@ApiTags('configs')
@Controller()
export class MessageLogController {
  constructor(
    private readonly messages: MessageLogService,
    private readonly health: DeliveryHealthService,
  ) {}

  @Operation('/v2/workspace/advancedwebhook/messages/get', {
    summary: 'Lists advanced webhook deliveries with their attempts, newest first, a page at a time.',
    example: { limit: 20 },

    auth: 'apiKey',
    message: 'Advanced webhook messages retrieved successfully.',
    response: MessagesPageResult,
    errors: ADVANCED_OFF,
  })
  list(@ApiKeyPrincipal() caller: Caller, @RequestData() data: ListMessagesRequest) {
    return this.messages.list(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/messages/retry', {
    summary: 'Sends an advanced webhook message again, to one endpoint or to every enabled endpoint it went to.',
    example: { messageId: 'msg_01JDQ3A4B5C6D7E8F9G0H1J2K3', endpointId: 'ep_01JDQ2Y3Z4A5B6C7D8E9F0G1H2' },
    exampleFrom: {
      '/messageId': { operation: '/v2/workspace/advancedwebhook/endpoints/test', answer: '/result/data/messageId' },
      '/endpointId': { operation: '/v2/workspace/advancedwebhook/endpoints/create', answer: '/result/data/id' },
    },

    auth: 'apiKey',
    message: 'Advanced webhook message retry scheduled successfully.',
    response: MessageRetryResult,
    errors: [...ADVANCED_OFF, MessageErrors.endpointDisabled(), MessageErrors.messageMissing(), ConfigErrors.endpointMissing()],
  })
  retry(@ApiKeyPrincipal() caller: Caller, @RequestData() data: RetryMessageRequest) {
    return this.messages.retry(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/messages/recover', {
    summary: 'Sends again every message whose delivery to an endpoint failed within a time window.',
    example: { endpointId: 'ep_01JDQ2Y3Z4A5B6C7D8E9F0G1H2', since: '2026-11-01T00:00:00Z' },
    exampleFrom: { '/endpointId': { operation: '/v2/workspace/advancedwebhook/endpoints/create', answer: '/result/data/id' } },

    auth: 'apiKey',
    message: 'Failed advanced webhook messages scheduled again successfully.',
    response: MessagesRecoveredResult,
    errors: [...ADVANCED_OFF, MessageErrors.endpointDisabled(), ConfigErrors.endpointMissing()],
  })
  recover(@ApiKeyPrincipal() caller: Caller, @RequestData() data: RecoverMessagesRequest) {
    return this.messages.recover(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/test', {
    summary: 'Queues a test message to one endpoint, whatever its filters.',
    example: { endpointId: 'ep_01JDQ2Y3Z4A5B6C7D8E9F0G1H2', eventType: 'webhook.test' },
    exampleFrom: { '/endpointId': { operation: '/v2/workspace/advancedwebhook/endpoints/create', answer: '/result/data/id' } },
    listedAfter: '/v2/workspace/advancedwebhook/endpoints/secret/rotate',

    auth: 'apiKey',
    message: 'Test message sent successfully.',
    response: TestMessageResult,
    errors: [...ADVANCED_OFF, MessageErrors.endpointDisabled(), ConfigErrors.endpointMissing()],
  })
  test(@ApiKeyPrincipal() caller: Caller, @RequestData() data: TestMessageRequest) {
    return this.messages.sendTest(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/health/get', {
    summary: 'Reads the delivery backlog by channel, and which advanced webhook endpoints are failing or disabled.',

    auth: 'apiKey',
    message: 'Delivery health retrieved successfully.',
    response: DeliveryHealthResult,
    errors: ADVANCED_OFF,
  })
  getHealth(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest) {
    return this.health.get(caller);
  }
}
