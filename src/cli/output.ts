import { ApiError } from '../common/errors.js';

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
