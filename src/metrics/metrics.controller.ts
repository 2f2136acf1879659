import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Auth } from '../common/decorators/operation.decorator.js';
import { Metrics } from '../common/metrics.js';

/** `GET /metrics`: Prometheus text format; outside the envelope convention, like `/health`. */
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get('metrics')
  @Auth('public')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.text();
  }
}
