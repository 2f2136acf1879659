import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

/** The Node.js major version this process runs on. */
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/**
 * The embedded database's driver, better-sqlite3, in the version this Node.js needs: 13 (built
 * on Node-API, prebuilt for each platform inside its package) on Node.js 22 and later, and 12
 * (the package alias `better-sqlite3-node20`, compiled at install) on Node.js 20. Neither
 * serves all three: 12's objects, freed after a worker thread's environment is gone, abort
 * Node.js 24 (`RemoveEnvironmentCleanupHook` asserts; our test files and the WAL checkpoint
 * run in worker threads), and 13 crashes on load in Node.js 20. Every use of the driver takes
 * it from here (TypeORM through its `driver` option), so one process never loads both.
 */
export const SqliteDatabase: typeof BetterSqlite3 = (NODE_MAJOR >= 22 ? require('better-sqlite3') : require('better-sqlite3-node20')) as typeof BetterSqlite3;

/** The driver's connection type. */
export type SqliteConnection = BetterSqlite3.Database;
