import 'reflect-metadata';
import { readProcessEnv } from './config/load-config.js';
import { runCli } from './cli/run.js';

/** `npm run cli -- <command>`: admin commands over the service's own modules and database. */
process.exitCode = await runCli(process.argv.slice(2), { env: readProcessEnv() });
