import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CredentialVerifier, type WorkspaceCheck } from '../common/guards/credential-verifier.js';
import type { ConsoleSessionCheck } from '../common/request-context.js';
import { Clock } from '../common/clock.js';
import { newApiKeyAuthToken, newSortableId } from '../common/ids.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { safeEqual, Secrets } from '../common/secrets.js';
import { ApiKeyStore } from './api-key-store.js';
import { WorkspaceStore } from './workspace-store.js';

export const DEFAULT_AUTH_TOKEN_NAME = 'Default Auth Token';

/** Longest credential worth hashing; anything longer cannot be ours. */
const MAX_CREDENTIAL_LENGTH = 256;

/** Checks credentials against their keyed hashes and issues API-key auth tokens. */
@Injectable()
export class CredentialsService extends CredentialVerifier {
  constructor(
    private readonly secrets: Secrets,
    private readonly keys: ApiKeyStore,
    private readonly workspaces: WorkspaceStore,
    private readonly clock: Clock,
  ) {
    super();
  }

  /** One indexed lookup: the token's hash, joined to its key. */
  override async verifyApiKey(apiKey: string, authToken: string): Promise<ApiKeyPrincipal | undefined> {
    if (apiKey.length > MAX_CREDENTIAL_LENGTH || authToken.length > MAX_CREDENTIAL_LENGTH) return undefined;
    const hash = this.secrets.lookupHash(authToken);
    const holder = await this.keys.tokenHolder(apiKey, hash);
    if (!holder || !safeEqual(holder.tokenHash, hash)) return undefined;
    return { apiKeyId: holder.apiKeyId, workspaceId: holder.workspaceId };
  }

  override async verifyWorkspace(workspaceId: string, authToken: string): Promise<WorkspaceCheck> {
    if (workspaceId.length > MAX_CREDENTIAL_LENGTH || authToken.length > MAX_CREDENTIAL_LENGTH) return 'unknown-workspace';
    const tokenHash = await this.workspaces.authTokenHash(workspaceId);
    if (tokenHash === undefined) return 'unknown-workspace';
    return safeEqual(tokenHash, this.secrets.lookupHash(authToken)) ? 'valid' : 'wrong-token';
  }

  override async verifyConsoleSession(sessionToken: string): Promise<ConsoleSessionCheck | undefined> {
    if (sessionToken.length > MAX_CREDENTIAL_LENGTH) return undefined;
    const sessionHash = this.secrets.lookupHash(sessionToken);
    const holder = await this.workspaces.consoleSessionHolder(sessionHash, this.clock.now());
    return holder && { ...holder, sessionHash, csrfToken: this.consoleCsrfToken(sessionToken) };
  }

  override consoleOwnsWorkspace(session: ConsoleSessionCheck, workspaceId: string): Promise<boolean> {
    if (workspaceId.length > MAX_CREDENTIAL_LENGTH) return Promise.resolve(false);
    return this.workspaces.isOwnedBy(workspaceId, session.accountId);
  }

  override async consoleApiKey(session: ConsoleSessionCheck, apiKey: string): Promise<ApiKeyPrincipal | undefined> {
    if (apiKey.length > MAX_CREDENTIAL_LENGTH) return undefined;
    const workspaceId = await this.keys.workspaceOfKey(apiKey);
    if (workspaceId === undefined || !(await this.workspaces.isOwnedBy(workspaceId, session.accountId))) return undefined;
    return { apiKeyId: apiKey, workspaceId };
  }

  /**
   * A session's CSRF token: a keyed hash of the cookie's value under a purpose of its own, so it
   * needs no storage, differs from the stored lookup hash, and says nothing about the cookie.
   */
  consoleCsrfToken(sessionToken: string): string {
    return this.secrets.lookupHash(`console-csrf:${sessionToken}`);
  }

  /** Creates an auth token for a key inside the caller's transaction; returns it in clear once. */
  async issueApiKeyToken(manager: EntityManager, apiKeyId: string, name = DEFAULT_AUTH_TOKEN_NAME, domains: string[] = []): Promise<IssuedToken> {
    const token = newApiKeyAuthToken();
    await this.keys.addToken(manager, {
      id: newSortableId('tok_'),
      apiKeyId,
      name,
      tokenHash: this.secrets.lookupHash(token),
      tokenEnc: this.secrets.encrypt(token),
      domains,
      createdAt: Date.now(),
    });
    return { token, name, domains };
  }
}

/** An auth token as the workspace operations return it. */
export interface IssuedToken {
  token: string;
  name: string;
  domains: string[];
}
