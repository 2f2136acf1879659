import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { RateLimitStoreModule } from '../common/rate-limit/rate-limit.module.js';
import { HealthController } from './health.controller.js';

@Module({
  imports: [TerminusModule.forRoot({ logger: false }), RateLimitStoreModule],
  controllers: [HealthController],
})
export class HealthModule {}
