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

/** The advanced webhook message log and replay (contract 6.3), and the console's delivery tools. */
@ApiTags('configs')
@Controller()
export class MessageLogController {
  constructor(
    private readonly messages: MessageLogService,
    private readonly health: DeliveryHealthService,
  ) {}

  @Operation('/v2/workspace/advancedwebhook/messages/get', {
    auth: 'apiKey',
    message: 'Advanced webhook messages retrieved successfully.',
    response: MessagesPageResult,
    errors: ['FAILED_PRECONDITION'],
  })
  list(@ApiKeyPrincipal() caller: Caller, @RequestData() data: ListMessagesRequest) {
    return this.messages.list(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/messages/retry', {
    auth: 'apiKey',
    message: 'Advanced webhook message retry scheduled successfully.',
    response: MessageRetryResult,
    errors: ['FAILED_PRECONDITION', 'NOT_FOUND'],
  })
  retry(@ApiKeyPrincipal() caller: Caller, @RequestData() data: RetryMessageRequest) {
    return this.messages.retry(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/messages/recover', {
    auth: 'apiKey',
    message: 'Failed advanced webhook messages scheduled again successfully.',
    response: MessagesRecoveredResult,
    errors: ['FAILED_PRECONDITION', 'NOT_FOUND'],
  })
  recover(@ApiKeyPrincipal() caller: Caller, @RequestData() data: RecoverMessagesRequest) {
    return this.messages.recover(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/endpoints/test', {
    auth: 'apiKey',
    message: 'Test message sent successfully.',
    response: TestMessageResult,
    errors: ['FAILED_PRECONDITION', 'NOT_FOUND'],
  })
  test(@ApiKeyPrincipal() caller: Caller, @RequestData() data: TestMessageRequest) {
    return this.messages.sendTest(caller, data);
  }

  @Operation('/v2/workspace/advancedwebhook/health/get', {
    auth: 'apiKey',
    message: 'Delivery health retrieved successfully.',
    response: DeliveryHealthResult,
    errors: ['FAILED_PRECONDITION'],
  })
  getHealth(@ApiKeyPrincipal() caller: Caller, @RequestData() _data: EmptyRequest) {
    return this.health.get(caller);
  }
}
