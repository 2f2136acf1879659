import type { IncomingHttpHeaders } from 'node:http';

/** The caller of an API-key-level operation; every query below the controller is scoped by it. */
export interface ApiKeyPrincipal {
  readonly apiKeyId: string;
  readonly workspaceId: string;
}

/** The caller of a workspace-level operation. */
export interface WorkspacePrincipal {
  readonly workspaceId: string;
}

/** Why a body could not be used; kept until credentials have been checked (contract 1.1). */
export type BodyProblem = { kind: 'too-large'; limit: number } | { kind: 'malformed' };

/**
 * A request as guards, decorators and filters see it, whichever HTTP framework runs (both give
 * these fields); plus what the pipeline attaches before the handler runs.
 */
export interface ServiceRequest {
  id: string;
  readonly method: string;
  readonly url: string;
  readonly ip?: string;
  readonly headers: IncomingHttpHeaders;
  body?: unknown;
  bodyProblem?: BodyProblem;
  apiKeyPrincipal?: ApiKeyPrincipal;
  workspacePrincipal?: WorkspacePrincipal;
}
