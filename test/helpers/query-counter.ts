import type { DataSource } from 'typeorm';

/**
 * Counts the SQL statements TypeORM runs (every query runner reports each one to the
 * DataSource's logger, whatever the logging option), to assert fixed statement counts.
 */
export function countQueries(dataSource: DataSource): {
  count: () => number;
  reset: () => void;
  queries: string[];
  onConnectionOf: (pattern: RegExp) => string[];
} {
  const queries: string[] = [];
  const runners: unknown[] = [];
  const logger = dataSource.logger;
  const original = logger.logQuery.bind(logger);
  logger.logQuery = (query, parameters, runner) => {
    queries.push(query);
    runners.push(runner);
    return original(query, parameters, runner);
  };
  return {
    count: () => queries.length,
    reset: () => {
      queries.length = 0;
      runners.length = 0;
    },
    queries,
    /**
     * The statements sent on the connection (query runner) of the first one matching `pattern`:
     * one unit's statements, without those a background worker of the same app sent meanwhile.
     */
    onConnectionOf: (pattern) => {
      const first = queries.findIndex((query) => pattern.test(query));
      if (first < 0 || runners[first] === undefined) return [...queries];
      return queries.filter((_, i) => runners[i] === runners[first]);
    },
  };
}
