import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Auth } from '../common/decorators/operation.decorator.js';
import { HealthReports } from '../common/health-reports.js';
import { RATE_LIMIT_STORE, type RateLimitStore } from '../common/rate-limit/rate-limit.module.js';

/**
 * `GET /health`: liveness plus a database round trip, where rate limits are counted (a Redis
 * outage shows as `rateLimiter.degraded`, still `up`: the service keeps serving with counters of
 * its own), and the sections modules add (`HealthReports`); outside the envelope convention.
 */
@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    @Inject(RATE_LIMIT_STORE) private readonly limiter: RateLimitStore,
    private readonly reports: HealthReports,
  ) {}

  @Get('health')
  @Auth('public')
  @ApiOperation({ summary: 'Liveness, a database round trip, and where rate limits are counted', operationId: 'health' })
  @ApiResponse({ status: 200, description: 'Up: `{ status: "ok", info, error, details }` (Terminus).', schema: { type: 'object', additionalProperties: true } })
  @ApiResponse({ status: 503, description: 'The database did not answer: `{ status: "error", ... }`.', schema: { type: 'object', additionalProperties: true } })
  async check(@Res({ passthrough: true }) response: { status(code: number): unknown }): Promise<unknown> {
    try {
      return await this.health.check([
        () => this.database.pingCheck('database', { timeout: 2000 }),
        () => ({ rateLimiter: { status: 'up', ...this.limiter.state() } }),
        // Sections other modules add (live editing: rooms and connections on this instance).
        () => this.reports.read() as Record<string, { status: 'up' }>,
      ]);
    } catch (error) {
      response.status(503);
      return (error as { response?: unknown }).response ?? { status: 'error' };
    }
  }
}
