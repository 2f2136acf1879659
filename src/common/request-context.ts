import type { IncomingHttpHeaders } from 'node:http';

/** A live console session, as the guard checks it. */
export interface ConsoleSessionCheck {
  readonly accountId: string;
  readonly email: string;
  readonly expiresAt: number;
  /** The keyed hash the session is stored by (sign-out removes it). */
  readonly sessionHash: string;
  /** The token every changing console request carries in a header (CSRF). */
  readonly csrfToken: string;
}

/** The caller of an API-key-level operation; every query below the controller is scoped by it. */
export interface ApiKeyPrincipal {
  readonly apiKeyId: string;
  readonly workspaceId: string;
}

/** The caller of a workspace-level operation. */
export interface WorkspacePrincipal {
  readonly workspaceId: string;
  /**
   * Signed in through the console (a session cookie, not the workspace token): answers leave
   * out credentials the page never needs to read (the workspace token; API-key tokens but for
   * the one a reset or a new key shows once).
   */
  readonly viaConsole?: boolean;
}

/** Why a body could not be used; kept until credentials have been checked (contract 1.1). */
export type BodyProblem =
  | { kind: 'too-large'; limit: number }
  /** With JSON.parse's error when the bytes arrived and did not parse (none when the body could not be read). */
  | { kind: 'malformed'; jsonError?: string };

/**
 * A request as guards, decorators and filters see it, whichever HTTP framework runs (both give
 * these fields); plus what the pipeline attaches before the handler runs.
 */
export interface ServiceRequest {
  id: string;
  readonly method: string;
  readonly url: string;
  readonly ip?: string;
  /** `http` or `https`, as the framework reads it (behind a trusted proxy: its forwarded protocol). */
  readonly protocol?: string;
  readonly headers: IncomingHttpHeaders;
  body?: unknown;
  bodyProblem?: BodyProblem;
  apiKeyPrincipal?: ApiKeyPrincipal;
  workspacePrincipal?: WorkspacePrincipal;
  /** The console session the request came with, when it was authenticated by one. */
  consoleSession?: ConsoleSessionCheck;
}
