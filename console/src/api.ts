// Every console action is one of the service's own operations, called with the session cookie
// (sent by the browser, never readable here) and the session's CSRF token, kept only in this
// module's memory: nothing the console holds is in localStorage, sessionStorage or a readable cookie.

/** The error envelope of an operation, thrown to the screen that called it. */
export class ApiFailure extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** Which key or workspace an operation acts on: named in the headers the operation reads. */
export interface Scope {
  workspaceId?: string;
  apiKey?: string;
}

/** A success answer: `data` and the page fields some list operations add beside it. */
export interface Answer<T> {
  data: T;
  message: string;
  pageToken?: string;
  nextPageToken?: string;
}

let csrfToken = '';
let onSignedOut: () => void = () => {};
/** The service's header names carry its configured product part (`x-<product>-api-key`), given in the page. */
const product = document.querySelector<HTMLMetaElement>('meta[name="header-product"]')?.content || 'svc';

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Called when the service says the session is gone (expired, signed out elsewhere). */
export function whenSignedOut(callback: () => void): void {
  onSignedOut = callback;
}

export async function call<T>(path: string, data: object = {}, scope: Scope = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (csrfToken) headers['x-console-csrf'] = csrfToken;
  if (scope.workspaceId) headers[`x-${product}-workspace-id`] = scope.workspaceId;
  if (scope.apiKey) headers[`x-${product}-api-key`] = scope.apiKey;
  let response: Response;
  try {
    response = await fetch(path, { method: 'POST', headers, body: JSON.stringify({ data }), credentials: 'same-origin' });
  } catch {
    throw new ApiFailure(0, 'UNAVAILABLE', 'The service could not be reached. Check the connection and try again.');
  }
  const body = (await response.json().catch(() => ({}))) as {
    result?: Answer<T>;
    error?: { status: string; message: string; details?: unknown };
  };
  if (response.ok && body.result) return body.result;
  const error = body.error ?? { status: 'UNKNOWN', message: `The service answered ${response.status}.` };
  if (response.status === 401 && path !== '/v2/console/session/create') onSignedOut();
  throw new ApiFailure(response.status, error.status, error.message, error.details);
}

/** A failure's message with the fields it names, as the operation's validation gave them. */
export function describe(error: unknown): string {
  if (error instanceof ApiFailure) return error.message;
  return error instanceof Error ? error.message : String(error);
}
