import type { Request } from 'express';

/** The caller of an API-key-level operation; every query below the controller is scoped by it. */
export interface ApiKeyPrincipal {
  readonly apiKeyId: string;
  readonly workspaceId: string;
}

/** The caller of a workspace-level operation. */
export interface WorkspacePrincipal {
  readonly workspaceId: string;
}

/** What the pipeline attaches to a request before the handler runs. */
export interface ServiceRequest extends Request {
  /** Request id (echoed `x-request-id` or generated), set by the logger middleware. */
  id: string | number | object;
  /** A body that failed to parse, kept so authentication can answer first (contract 1.1). */
  bodyError?: { type?: string; status?: number; limit?: number };
  apiKeyPrincipal?: ApiKeyPrincipal;
  workspacePrincipal?: WorkspacePrincipal;
}
