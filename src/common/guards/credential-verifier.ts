import type { ApiKeyPrincipal, ConsoleSessionCheck } from '../request-context.js';

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
  /** The session of a console cookie's value when it is live, else undefined. */
  abstract verifyConsoleSession(sessionToken: string): Promise<ConsoleSessionCheck | undefined>;
  /** Whether the session's account owns the workspace. */
  abstract consoleOwnsWorkspace(session: ConsoleSessionCheck, workspaceId: string): Promise<boolean>;
  /** The principal of `apiKey` when the session's account owns its workspace, else undefined. */
  abstract consoleApiKey(session: ConsoleSessionCheck, apiKey: string): Promise<ApiKeyPrincipal | undefined>;
}
