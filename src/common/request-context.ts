import type { FastifyRequest } from 'fastify';

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

/** What the pipeline attaches to a request before the handler runs. */
export interface ServiceRequest extends FastifyRequest {
  bodyProblem?: BodyProblem;
  apiKeyPrincipal?: ApiKeyPrincipal;
  workspacePrincipal?: WorkspacePrincipal;
}
