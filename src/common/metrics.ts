import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** A value read when Prometheus scrapes (a pool's connections, the outbox's depth). */
export type Sampler = () => Promise<Record<string, number>> | Record<string, number>;

/**
 * The service's Prometheus metrics (`GET /metrics`): requests and their latency per operation,
 * rate-limit rejections, delivery outcomes, and values sampled at scrape time (database pool,
 * outbox depth) by the modules that own them. One registry per app, so apps in one process
 * (the tests) keep their own counts.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by operation and HTTP status.',
    labelNames: ['operation', 'status'],
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer a request, by operation.',
    labelNames: ['operation'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused by a rate limit, by limit.',
    labelNames: ['limit'],
    registers: [this.registry],
  });
  readonly deliveries = new Counter({
    name: 'deliveries_total',
    help: 'Delivery outcomes written, by channel and outcome.',
    labelNames: ['channel', 'outcome'],
    registers: [this.registry],
  });

  /** Reads of the gauges of `gaugeAtScrapeStart`, run before any sampler. */
  private readonly firstReads: (() => void)[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A gauge whose labelled values `sample` gives at each scrape. */
  gauge(name: string, help: string, label: string, sample: Sampler): void {
    // prom-client calls `collect` on the gauge at each scrape.
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      async collect() {
        const values = await sample();
        this.reset();
        for (const [value, count] of Object.entries(values)) this.set({ [label]: value }, count);
      },
    });
  }

  /**
   * A gauge read synchronously when a scrape begins, before any sampler runs: for values the
   * samplers' own work would change. The database pool's `waiting` was the scrape's own queries
   * (the outbox depth, the attachments' totals), queued for a connection while an idle one was
   * being handed out, so an idle service showed requests waiting.
   */
  gaugeAtScrapeStart(name: string, help: string, label: string, read: () => Record<string, number>): void {
    const gauge = new Gauge({ name, help, labelNames: [label], registers: [this.registry] });
    this.firstReads.push(() => {
      const values = read();
      gauge.reset();
      for (const [value, count] of Object.entries(values)) gauge.set({ [label]: value }, count);
    });
  }

  /** The text Prometheus scrapes. */
  text(): Promise<string> {
    for (const read of this.firstReads) read();
    return this.registry.metrics();
  }
}
