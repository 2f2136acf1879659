import type { DataSource } from 'typeorm';

/**
 * Counts the SQL statements TypeORM runs (every query runner reports each one to the
 * DataSource's logger, whatever the logging option), to assert fixed statement counts.
 */
export function countQueries(dataSource: DataSource): { count: () => number; reset: () => void; queries: string[] } {
  const queries: string[] = [];
  const logger = dataSource.logger;
  const original = logger.logQuery.bind(logger);
  logger.logQuery = (query, parameters, runner) => {
    queries.push(query);
    return original(query, parameters, runner);
  };
  return { count: () => queries.length, reset: () => (queries.length = 0), queries };
}
