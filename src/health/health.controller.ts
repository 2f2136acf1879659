import { Controller, Get, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Auth } from '../common/decorators/operation.decorator.js';

/** `GET /health`: liveness plus a database round trip; outside the envelope convention. */
@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  @Get('health')
  @Auth('public')
  async check(@Res({ passthrough: true }) response: FastifyReply): Promise<unknown> {
    try {
      return await this.health.check([() => this.database.pingCheck('database', { timeout: 2000 })]);
    } catch (error) {
      response.status(503);
      return (error as { response?: unknown }).response ?? { status: 'error' };
    }
  }
}
