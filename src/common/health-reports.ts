import { Injectable } from '@nestjs/common';

/** What a module adds to `GET /health` under its name: a small object, read at each check. */
export type HealthReport = () => Record<string, unknown>;

/**
 * The sections modules add to `GET /health` beside the database check (live editing's rooms and
 * connections, say): the health module reads them without importing the modules above it.
 */
@Injectable()
export class HealthReports {
  private readonly reports = new Map<string, HealthReport>();

  add(name: string, report: HealthReport): void {
    this.reports.set(name, report);
  }

  /** Every section, each `{ status: 'up', ...its report }` as Terminus lists indicators. */
  read(): Record<string, Record<string, unknown>> {
    return Object.fromEntries([...this.reports].map(([name, report]) => [name, { status: 'up', ...report() }]));
  }
}
