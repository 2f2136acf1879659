import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CommandRunner, InjectCommander } from 'nest-commander';
import { currentRun } from './output.js';

/** How an operator runs the CLI, as its help and usage lines name it (`npm run cli -- workspace list`). */
export const PROGRAM_NAME = 'npm run cli --';

/** A command of commander's tree (nest-commander does not re-export commander's type). */
type CommanderCommand = Parameters<CommandRunner['setCommand']>[0];

/** The words that run a command: `npm run cli -- workspace set-plan`. */
function usagePath(command: CommanderCommand): string {
  return command.parent ? `${usagePath(command.parent)} ${command.name()}` : command.name();
}

/**
 * Settles what nest-commander leaves to commander's defaults, once every command is built: the
 * program's name (commander would take the script's file name, `cli`, which no one can type), a
 * hint after each usage error, and no stray arguments: commander ignores extra operands unless
 * told otherwise, so `apikey show a b` or `workspace list x` would run as if they were not there.
 * And every command writes to the run's streams and, where commander would call process.exit
 * (help, usage errors), throws its CommanderError instead, which `runCli` turns into the run's
 * exit code: the run ends as any other, its app closed.
 */
@Injectable()
export class CliProgram implements OnApplicationBootstrap {
  constructor(@InjectCommander() private readonly program: CommanderCommand) {}

  onApplicationBootstrap(): void {
    this.program.name(PROGRAM_NAME);
    const output = { writeOut: (text: string) => currentRun().streams.out(text), writeErr: (text: string) => currentRun().streams.err(text) };
    const settle = (command: CommanderCommand) => {
      command.configureOutput(output);
      command.exitOverride();
      command.showHelpAfterError(`(${usagePath(command)} --help shows the usage)`);
      // Groups get their operands themselves (CommandGroup names an unknown subcommand).
      if (!command.commands.length) command.allowExcessArguments(false);
      command.commands.forEach(settle);
    };
    settle(this.program);
  }
}

/**
 * A command that only groups subcommands (`workspace`, `apikey`, ...). Run without one, it shows
 * its help and exits 1, as the program does without a command; run with an unknown one, it says
 * so and exits 1 (nest-commander gives every command an action, so commander would run the
 * group with the unknown word as an argument and exit 0).
 */
export abstract class CommandGroup extends CommandRunner {
  async run(args: string[]): Promise<void> {
    if (!args.length) this.command.help({ error: true });
    const known = this.command.commands.map((command) => command.name());
    this.command.error(`error: unknown command '${args[0]}' for '${usagePath(this.command)}' (commands: ${known.join(', ')})`);
  }
}

/**
 * Whether an error is commander's own exit (help shown, a usage error: the message is already
 * out), carrying the exit code. Told by its code, as commander's CommanderError has one:
 * nest-commander does not re-export the class.
 */
export function commanderExit(error: unknown): { exitCode: number } | undefined {
  const { code, exitCode } = (error ?? {}) as { code?: unknown; exitCode?: unknown };
  return typeof code === 'string' && code.startsWith('commander.') && typeof exitCode === 'number' ? { exitCode } : undefined;
}
