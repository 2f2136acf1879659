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
      // Commander reports help and usage errors through this handler. (The program's name in
      // them is set by CliProgram: nest-commander's cliName only names its plugin config files.)
      errorHandler: (error) => process.exit((error as { exitCode?: number }).exitCode ?? 1),
      // An error no command turned into a message (runCommand does for the service's own):
      // nest-commander would print it and exit 0.
      serviceErrorHandler: (error) => {
        process.stderr.write(`Unexpected error: ${error.stack ?? String(error)}\n`);
        process.exitCode = 1;
      },
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
