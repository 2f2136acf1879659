import type { ApiKeyPrincipal } from '../request-context.js';

/** Outcome of checking workspace credentials; the caller decides which error each gets. */
export type WorkspaceCheck = 'valid' | 'unknown-workspace' | 'wrong-token';

/**
 * Looks credentials up. Implemented by the workspace module; the guard only knows this
 * contract, so `common/` does not depend on any feature module.
 */
export abstract class CredentialVerifier {
  /** The principal when `authToken` is a live token of `apiKey`, else undefined. */
  abstract verifyApiKey(apiKey: string, authToken: string): Promise<ApiKeyPrincipal | undefined>;
  abstract verifyWorkspace(workspaceId: string, authToken: string): Promise<WorkspaceCheck>;
}
