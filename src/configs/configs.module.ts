import { ActivityConfigService } from './activity-config.service.js';
import { ApiKeyConfigService } from './api-key-config.service.js';
import { Module } from '@nestjs/common';
import { ConfigCodec } from '../workspace/config-codec.js';
import { ConfigsController } from './configs.controller.js';
import { ConfigsService } from './configs.service.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';

/** Delivery configs of an API key and advanced webhook endpoints (contract part 3). */
@Module({
  controllers: [ConfigsController],
  providers: [ConfigCodec, ConfigsService, WebhookEndpointsService, ApiKeyConfigService, ActivityConfigService],
  exports: [ConfigCodec, ConfigsService, WebhookEndpointsService],
})
export class ConfigsModule {}
