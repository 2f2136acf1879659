import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CredentialVerifier, type WorkspaceCheck } from '../common/guards/credential-verifier.js';
import { newApiKeyAuthToken, newSortableId } from '../common/ids.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { safeEqual, Secrets } from '../common/secrets.js';
import { ApiKeyRepository } from './api-key.repository.js';
import { WorkspaceRepository } from './workspace.repository.js';

export const DEFAULT_AUTH_TOKEN_NAME = 'Default Auth Token';

/** Longest credential worth hashing; anything longer cannot be ours. */
const MAX_CREDENTIAL_LENGTH = 256;

/** Checks credentials against their keyed hashes and issues API-key auth tokens. */
@Injectable()
export class CredentialsService extends CredentialVerifier {
  constructor(
    private readonly secrets: Secrets,
    private readonly keys: ApiKeyRepository,
    private readonly workspaces: WorkspaceRepository,
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
