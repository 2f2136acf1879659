import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Metrics } from '../common/metrics.js';

/** What `pg.Pool` tells of its connections. */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** The database pool in the metrics: PostgreSQL's connections (open, idle) and requests waiting for one. */
@Injectable()
export class DatabaseMetrics implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    if (this.dataSource.options.type !== 'postgres') return;
    const pool = (this.dataSource.driver as unknown as { master: PoolCounts }).master;
    // Read before the scrape's own queries take connections (see `gaugeAtScrapeStart`).
    this.metrics.gaugeAtScrapeStart('db_pool_connections', 'PostgreSQL pool: connections open and idle, and requests waiting for one.', 'state', () => ({
      open: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }));
  }
}
