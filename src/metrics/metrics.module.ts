import { Global, Module } from '@nestjs/common';
import { DatabaseMetrics } from './database-metrics.js';
import { MetricsController } from './metrics.controller.js';
import { Metrics } from '../common/metrics.js';

/** Prometheus metrics; global so any module can count into them or register a sampled gauge. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [Metrics, DatabaseMetrics],
  exports: [Metrics],
})
export class MetricsModule {}
