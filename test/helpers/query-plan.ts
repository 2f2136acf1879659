import type { DataSource } from 'typeorm';

/** A statement as the service sent it to the database. */
export interface SentStatement {
  query: string;
  parameters: unknown[];
}

/**
 * The first statement `work` makes whose text matches `pattern`, as sent (every query runner,
 * and `Sql`, reports each statement to the data source's logger).
 */
export async function statementOf(dataSource: DataSource, pattern: RegExp, work: () => Promise<unknown>): Promise<SentStatement> {
  const sent: SentStatement[] = [];
  const logger = dataSource.logger;
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (query, parameters, runner) => {
    sent.push({ query, parameters: Array.isArray(parameters) ? parameters : [] });
    return logQuery(query, parameters, runner);
  };
  try {
    await work();
  } finally {
    logger.logQuery = logQuery;
  }
  const found = sent.find((statement) => pattern.test(statement.query));
  if (!found) throw new Error(`no statement matching ${pattern} among ${sent.length}`);
  return found;
}

/**
 * The database's plan for `statement`, as text: SQLite's `EXPLAIN QUERY PLAN` lines, or
 * PostgreSQL's `EXPLAIN` with sequential scans and sorts priced out. A test's tables are small:
 * the planner would otherwise read them whole, whatever the indexes, and between two indexes
 * one of which gives the order asked for, a few rows' sort costs about nothing, so its choice
 * flipped from run to run. Priced out, a sort still shows where no index gives the order.
 */
export async function planOf(dataSource: DataSource, statement: SentStatement): Promise<string> {
  if (dataSource.options.type !== 'postgres') {
    const rows = (await dataSource.query(`EXPLAIN QUERY PLAN ${statement.query}`, statement.parameters)) as { detail: string }[];
    return rows.map((row) => row.detail).join('\n');
  }
  const runner = dataSource.createQueryRunner();
  try {
    await runner.startTransaction();
    await runner.query('SET LOCAL enable_seqscan = off');
    await runner.query('SET LOCAL enable_sort = off');
    const rows = (await runner.query(`EXPLAIN ${statement.query}`, statement.parameters)) as { 'QUERY PLAN': string }[];
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}
