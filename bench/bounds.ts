import { UPSTREAM_COMMENT_ADD } from './scenarios.js';

/**
 * The performance bounds the issues set, checked against one run's rows: `npm run bench` ends
 * with a table of each bound, what this run measured and whether it holds, so a run answers the
 * question by itself. A bound whose scenario was not selected (BENCH_ONLY) or has no baseline
 * in this run reads "not measured", never "met".
 */

export type Row = Record<string, unknown>;

export interface RunFacts {
  rows: Row[];
  database: 'sqlite' | 'postgres';
  idleRssMb: number;
  seededRssMb: number | undefined;
}

interface Bound {
  name: string;
  /** Engines the bound holds on (both unless named). */
  engines?: RunFacts['database'][];
  goal: string;
  /** The measured value, or undefined when this run did not measure it. */
  measure(facts: RunFacts): number | undefined;
  met(value: number): boolean;
  unit?: string;
}

const find = (rows: Row[], scenario: string, target: string, field: string): number | undefined => {
  const row = rows.find((r) => String(r.scenario).startsWith(scenario) && String(r.target).startsWith(target));
  const value = row?.[field];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
};

const BOUNDS: Bound[] = [
  {
    name: 'domains/get vs bare baseline (Fastify)',
    goal: '≥ 0.6×',
    measure: ({ rows }) => find(rows, 'domains/get', 'ratio fastify/baseline', 'req/s'),
    met: (value) => value >= 0.6,
    unit: '×',
  },
  {
    name: 'domains/get vs bare baseline (Express)',
    goal: '≥ 0.45×',
    measure: ({ rows }) => find(rows, 'domains/get', 'ratio express/baseline', 'req/s'),
    met: (value) => value >= 0.45,
    unit: '×',
  },
  {
    name: 'memory/judgments/query, 20 newest of 100k, vs baseline',
    goal: '≥ 0.6×',
    measure: ({ rows }) => find(rows, 'memory/judgments/query', 'ratio fastify/baseline', 'req/s'),
    met: (value) => value >= 0.6,
    unit: '×',
  },
  {
    name: 'permissions/get, 100 users with own grants × 100 resources, p50 vs 1×1',
    goal: '≤ 8×',
    // The median of alternating turns' ratios (the scenario's `against`).
    measure: ({ rows }) => find(rows, 'permissions/get, 100 users with grants', 'p50 ratio fastify/', 'p50 ms'),
    met: (value) => value <= 8,
    unit: '×',
  },
  {
    name: 'webhook delivery throughput vs a bare POST loop',
    goal: '≥ 0.6×',
    measure: ({ rows }) => find(rows, 'deliveries, ', 'ratio service/baseline', 'req/s'),
    met: (value) => value >= 0.6,
    unit: '×',
  },
  {
    name: 'commentannotations/add, activities and notifications on',
    engines: ['sqlite'],
    goal: '≥ 2,000/s',
    measure: ({ rows }) => find(rows, 'commentannotations/add, 3 mentions, activities', 'service (fastify)', 'req/s'),
    met: (value) => value >= 2000,
    unit: '/s',
  },
  {
    name: 'commentannotations/add, activities and notifications on',
    engines: ['postgres'],
    goal: '≥ 1,000/s',
    measure: ({ rows }) => find(rows, 'commentannotations/add, 3 mentions, activities', 'service (fastify)', 'req/s'),
    met: (value) => value >= 1000,
    unit: '/s',
  },
  {
    name: 'commentannotations/add, upstream defaults, vs bare pgbench of the same writes',
    engines: ['postgres'],
    goal: '≥ 0.4×',
    measure: ({ rows }) => find(rows, `${UPSTREAM_COMMENT_ADD} (upstream`, 'ratio service/pgbench', 'req/s'),
    met: (value) => value >= 0.4,
    unit: '×',
  },
  {
    name: 'inbox entry visible after the answer, p99',
    goal: '≤ 250 ms',
    measure: ({ rows }) => find(rows, 'commentannotations/add, 3 mentions, activities', 'service (fastify): inbox entry visible after the answer', 'p99 ms'),
    met: (value) => value <= 250,
    unit: ' ms',
  },
  {
    name: 'live fan-out p99 vs bare ws relay (100 rooms × 10 clients)',
    goal: '≤ 2×',
    measure: ({ rows }) => find(rows, 'live fan-out, 100 rooms', 'ratio service/baseline', 'p99 ms'),
    met: (value) => value <= 2,
    unit: '×',
  },
  {
    name: 'live fan-out receipts/s vs bare ws relay',
    goal: '≥ 0.5×',
    measure: ({ rows }) => find(rows, 'live fan-out, 100 rooms', 'ratio service/baseline', 'req/s'),
    met: (value) => value >= 0.5,
    unit: '×',
  },
  {
    name: 'live, memory per idle connection',
    goal: '< 50 KB',
    measure: ({ rows }) => find(rows, 'live, 1,000 idle connections', 'service, rooms included', 'RSS KB'),
    met: (value) => value < 50,
    unit: ' KB',
  },
  {
    name: 'live, crdt/update answer → client, one instance, p99',
    goal: '< 100 ms',
    measure: ({ rows }) => find(rows, 'live, crdt/update answer', 'one instance', 'p99 ms'),
    met: (value) => value < 100,
    unit: ' ms',
  },
  {
    name: 'live, crdt/update answer → client across two instances, p99',
    goal: '< 250 ms',
    measure: ({ rows }) => find(rows, 'live, crdt/update answer', 'REST on A, client on B (Redis)', 'p99 ms'),
    met: (value) => value < 250,
    unit: ' ms',
  },
  {
    name: 'idle RSS after start',
    goal: '< 120 MB',
    measure: ({ idleRssMb }) => idleRssMb,
    met: (value) => value < 120,
    unit: ' MB',
  },
  {
    name: "RSS after seeding the bench's data",
    goal: '< 200 MB',
    measure: ({ seededRssMb }) => seededRssMb,
    met: (value) => value < 200,
    unit: ' MB',
  },
];

/** One row per bound that applies to this run's engine: measured value, goal, and whether it holds. */
export function checkBounds(facts: RunFacts): Row[] {
  return BOUNDS.filter((bound) => !bound.engines || bound.engines.includes(facts.database)).map((bound) => {
    const value = bound.measure(facts);
    return {
      bound: bound.name,
      goal: bound.goal,
      measured: value === undefined ? 'not measured' : `${Number(value.toFixed(2)).toLocaleString('en-US')}${bound.unit ?? ''}`,
      verdict: value === undefined ? '–' : bound.met(value) ? 'met' : 'NOT MET',
    };
  });
}
