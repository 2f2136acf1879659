import { ApiError } from '../common/errors.js';
import { wireValueProblem } from '../common/wire-values.js';
import { createValidationPipe } from '../common/validation.js';

/** Prints to stdout; commands print only what an operator needs to copy. */
export function print(lines: string | string[]): void {
  process.stdout.write(`${([] as string[]).concat(lines).join('\n')}\n`);
}

/** Domain errors become a one-line message and exit code 1; anything else propagates. */
export async function runCommand(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ApiError) {
      process.stderr.write(`Error (${error.code}): ${error.message}\n`);
      process.exitCode = 1;
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
