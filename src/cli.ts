import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { CliModule } from './cli/cli.module.js';
import { ConfigError } from './config/parsers.js';
import { loadAppConfig, readProcessEnv } from './config/load-config.js';

/** `npm run cli -- <command>`: admin commands over the service's own modules and database. */
async function main(): Promise<void> {
  const env = readProcessEnv();
  try {
    // Commands print their own results; the log stays quiet unless asked. A command never
    // delivers events nor runs data deletion jobs: that is the service's work.
    const fixed: Record<string, string> = { DELIVERY_CONCURRENCY: '0', DATA_DELETION_WORKER: 'false' };
    const config = loadAppConfig((name) => (name === 'LOG_LEVEL' ? (env(name) ?? 'warn') : (fixed[name] ?? env(name))));
    await CommandFactory.run(CliModule.forConfig(config), {
      logger: ['error', 'warn'],
      cliName: 'svc',
      // Commander reports help and usage errors through this handler.
      errorHandler: (error) => process.exit((error as { exitCode?: number }).exitCode ?? 1),
    });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

await main();
