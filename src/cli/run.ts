import { CommandFactory, CommandRunnerService } from 'nest-commander';
import type { LogLevel } from '@nestjs/common';
import type { EnvReader } from '../config/parsers.js';
import { loadAppConfig } from '../config/load-config.js';
import { ConfigError } from '../config/parsers.js';
import { CliModule } from './cli.module.js';
import { type CliStreams, PROCESS_STREAMS, withCliRun } from './output.js';
import { commanderExit, PROGRAM_NAME } from './program.js';

export interface CliOptions {
  /** The environment the configuration is read from. */
  env: EnvReader;
  /** Where the run writes; the process's stdout and stderr by default. */
  streams?: CliStreams;
  /** Nest's own log (the app's start-up); errors and warnings by default. */
  logger?: LogLevel[] | false;
}

/**
 * One run of the admin CLI: `args` as typed after `npm run cli --`, answered with the exit code
 * (0, or 1 for bad input, a refusal or an unexpected error). It builds the app's modules with the
 * commands, runs the one named and always closes the app; nothing in it exits the process, so
 * `cli.ts` only sets the exit code, and tests run it in their own process.
 */
export async function runCli(args: readonly string[], options: CliOptions): Promise<number> {
  return withCliRun(options.streams ?? PROCESS_STREAMS, options.env, async (run) => {
    // Commands print their own results; the log stays quiet unless asked. A command never
    // delivers events nor runs data deletion jobs: that is the service's work.
    const fixed: Record<string, string> = { DELIVERY_CONCURRENCY: '0', DATA_DELETION_WORKER: 'false' };
    let config;
    try {
      config = loadAppConfig((name) => (name === 'LOG_LEVEL' ? (options.env(name) ?? 'warn') : (fixed[name] ?? options.env(name))));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      run.streams.err(`${error.message}\n`);
      return 1;
    }
    const app = await CommandFactory.createWithoutRunning(CliModule.forConfig(config), {
      logger: options.logger ?? ['error', 'warn'],
      // A module that cannot start rejects (and the caller reports it) rather than aborting the process.
      abortOnError: false,
      // Commander's exits (CliProgram makes them throw: help, usage errors, their message already
      // out) and errors no command turned into a message (runCommand does for the service's own;
      // nest-commander would print them and exit 0).
      serviceErrorHandler: (error) => {
        const exit = commanderExit(error);
        if (exit) {
          run.exitCode = exit.exitCode;
          return;
        }
        run.streams.err(`Unexpected error: ${error.stack ?? String(error)}\n`);
        run.exitCode = 1;
      },
    });
    try {
      // Commander reads operands after the first two entries (node and the script's path).
      await app.get(CommandRunnerService).run([process.execPath, PROGRAM_NAME, ...args]);
    } finally {
      await app.close();
    }
    return run.exitCode;
  });
}
