import { AsyncLocalStorage } from 'node:async_hooks';
import { ApiError } from '../common/errors.js';
import type { EnvReader } from '../config/parsers.js';
import { readProcessEnv } from '../config/load-config.js';
import { wireValueProblem } from '../common/wire-values.js';
import { createValidationPipe } from '../common/validation/pipe.js';

/** Where a CLI run writes: the process's stdout and stderr, or a test's buffers. */
export interface CliStreams {
  out(text: string): void;
  err(text: string): void;
}

/** One run of the CLI (`runCli`): its streams and the exit code it ends with. */
export interface CliRun {
  readonly streams: CliStreams;
  /** The environment the run reads (its configuration, and variables such as NEW_MASTER_KEY). */
  readonly env: EnvReader;
  exitCode: number;
}

export const PROCESS_STREAMS: CliStreams = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/**
 * The run a command belongs to, found through the async context `runCli` starts, so commands
 * print to their own run's streams (several runs may share a process: the tests') without
 * passing them around. Outside a run: the process's streams and exit code.
 */
const runs = new AsyncLocalStorage<CliRun>();
const outsideRuns: CliRun = {
  streams: PROCESS_STREAMS,
  env: readProcessEnv(),
  get exitCode() {
    return Number(process.exitCode ?? 0);
  },
  set exitCode(code: number) {
    process.exitCode = code;
  },
};

/** Runs `work` as one CLI run reading `env` and writing to `streams`; `work` gets the run, to read its exit code. */
export function withCliRun<T>(streams: CliStreams, env: EnvReader, work: (run: CliRun) => Promise<T>): Promise<T> {
  const run: CliRun = { streams, env, exitCode: 0 };
  return runs.run(run, () => work(run));
}

/** The run the caller belongs to. */
export function currentRun(): CliRun {
  return runs.getStore() ?? outsideRuns;
}

/** Prints to stdout; commands print only what an operator needs to copy. */
export function print(lines: string | string[]): void {
  currentRun().streams.out(`${([] as string[]).concat(lines).join('\n')}\n`);
}

/** A failure that is not the service's refusal: `Error: <message>` on stderr and exit code 1. */
export function fail(message: string): void {
  const run = currentRun();
  run.streams.err(`Error: ${message}\n`);
  run.exitCode = 1;
}

/** A note on stderr (it does not change the exit code). */
export function note(text: string): void {
  currentRun().streams.err(`${text}\n`);
}

/**
 * Text that came from outside (names, e-mail addresses, receivers' answers) as it is safe to
 * print: control characters (terminal escapes, line breaks) shown as `\u` escapes, so a stored
 * name can neither move the cursor nor pass for another line of the output.
 */
export function shown(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** An epoch-millisecond time as printed: ISO 8601 in UTC, to the second. */
export function when(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Rows as columns aligned under a header; the last column runs free (put free text there). */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/**
 * Bad option value, thrown by an option's parse method: commander reports it as
 * `error: option '--limit <n>' argument '0' is invalid. <message>` and exits 1. The code and
 * exit code are those of commander's own InvalidArgumentError, which is how it recognises one.
 */
export class InvalidOptionValue extends Error {
  readonly code = 'commander.invalidArgument';
  readonly exitCode = 1;
}

/** The value when it is one of `allowed`; an InvalidOptionValue naming them otherwise. */
export function oneOf<T extends string>(value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new InvalidOptionValue(`Allowed values: ${allowed.join(', ')}.`);
  return value as T;
}

/** A whole number from `min` to `max`; an InvalidOptionValue saying so otherwise. */
export function wholeNumber(value: string, min: number, max: number): number {
  const number = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) throw new InvalidOptionValue(`It must be a whole number from ${min} to ${max}.`);
  return number;
}

/** Domain errors become a one-line message and exit code 1; anything else propagates. */
export async function runCommand(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ApiError) {
      const run = currentRun();
      run.streams.err(`Error (${error.code}): ${error.message}\n`);
      run.exitCode = 1;
      return;
    }
    throw error;
  }
}

export function curlExample(headerProduct: string, apiKey: string, authToken: string, port = 8080): string {
  return [
    `curl -s -X POST http://localhost:${port}/v2/workspace/domains/get \\`,
    `  -H 'content-type: application/json' \\`,
    `  -H 'x-${headerProduct}-api-key: ${apiKey}' \\`,
    `  -H 'x-${headerProduct}-auth-token: ${authToken}' \\`,
    `  -d '{"data":{}}'`,
  ].join('\n');
}

/**
 * The operation's request, checked by the same rules the API applies to `data` (the values no
 * field may hold, then the DTO class through the app's validation pipe): the CLI stores nothing
 * the API would refuse. Options not given are left out. INVALID_ARGUMENT names the field as the
 * API does (`data.ownerEmail ...`).
 */
export async function validatedRequest<T extends object>(dto: new () => T, options: Record<string, unknown>): Promise<T> {
  const data = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const problem = wireValueProblem(data);
  if (problem) throw new ApiError('INVALID_ARGUMENT', problem);
  return (await createValidationPipe().transform(data, { type: 'body', metatype: dto })) as T;
}
