import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../workspace/api-keys.module.js';
import { ActivityConfigService } from './activity-config.service.js';
import { ApiKeyConfigService } from './api-key-config.service.js';
import { ConfigsController } from './configs.controller.js';
import { ConfigsService } from './configs.service.js';
import { WebhookEndpointStore } from './webhook-endpoint-store.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';

/** Delivery configs of an API key and advanced webhook endpoints (contract part 3). */
@Module({
  imports: [ApiKeysModule],
  controllers: [ConfigsController],
  providers: [ConfigsService, WebhookEndpointStore, WebhookEndpointsService, ApiKeyConfigService, ActivityConfigService],
  exports: [ConfigsService, WebhookEndpointStore, WebhookEndpointsService],
})
export class ConfigsModule {}
