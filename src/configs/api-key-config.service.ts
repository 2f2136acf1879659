import { Injectable } from '@nestjs/common';
import type { AccessType } from '../common/access-types.js';
import { ApiError } from '../common/errors.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Secrets } from '../common/secrets.js';
import { Transactions } from '../database/transactions.js';
import { ApiKeyRepository } from '../workspace/api-key.repository.js';
import { stripUndefined, type KeySettings } from '../workspace/key-configs.js';
import { maskSecret } from './ai-model-keys.js';
import { ConfigErrors } from './configs.errors.js';
import type { UpdateApiKeyConfigRequest } from './dto/config.dto.js';

/** Upstream's apikeyconfig answer: the key's owner, plan and settings; AI keys masked. */
export interface ApiKeyConfigView {
  ownerEmail: string;
  planInfo: { type: string };
  defaultDocumentAccessType: AccessType;
  isPrivateCommentsEnabled: boolean;
  requireJwtToken: boolean;
  requireAutoOrgUser: boolean;
  aiModelsConfig?: Record<string, { displayText: string }>;
}

/** What an update echoes: the post-write values of the fields sent. */
export type ApiKeyConfigEcho = Partial<Pick<KeySettings, 'enablePrivateComments' | 'requireJwtToken' | 'requireAutoOrgUser' | 'defaultDocumentAccessType'>> & {
  aiModelsConfig?: Record<string, { displayText: string }>;
};

export const NOTHING_TO_UPDATE = 'At least one field must be provided for update';

/** The settings part of the `api_key` row as upstream's `apikeyconfig` get/update pair shows it. */
@Injectable()
export class ApiKeyConfigService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly transactions: Transactions,
    private readonly secrets: Secrets,
  ) {}

  async get(principal: ApiKeyPrincipal): Promise<ApiKeyConfigView> {
    const profile = await this.keys.profile(principal.apiKeyId);
    if (!profile) throw ConfigErrors.keyGone();
    const { settings } = profile;
    return {
      ownerEmail: profile.ownerEmail,
      planInfo: { type: profile.plan },
      defaultDocumentAccessType: settings.defaultDocumentAccessType,
      isPrivateCommentsEnabled: settings.enablePrivateComments,
      requireJwtToken: settings.requireJwtToken ?? false,
      requireAutoOrgUser: settings.requireAutoOrgUser,
      ...(settings.aiModelKeysEnc && Object.keys(settings.aiModelKeysEnc).length ? { aiModelsConfig: this.masked(settings.aiModelKeysEnc) } : {}),
    };
  }

  /** Merges the sent fields into the settings (nothing is removed), under the row's lock. */
  async update(principal: ApiKeyPrincipal, request: UpdateApiKeyConfigRequest): Promise<ApiKeyConfigEcho> {
    const { aiModelApiKey, ...flags } = request;
    const sent: ApiKeyConfigEcho = stripUndefined(flags);
    if (!Object.keys(sent).length && !aiModelApiKey) throw new ApiError('INVALID_ARGUMENT', NOTHING_TO_UPDATE);
    return this.transactions.run(async (manager) => {
      const stored = await this.keys.lockSettings(manager, principal.apiKeyId);
      if (!stored) throw ConfigErrors.keyGone();
      const settings: KeySettings = { ...stored, ...sent };
      if (aiModelApiKey) {
        settings.aiModelKeysEnc = {
          ...settings.aiModelKeysEnc,
          ...Object.fromEntries(aiModelApiKey.map((entry) => [entry.provider, this.secrets.encrypt(entry.customerApiKey)])),
        };
      }
      await this.keys.saveSettings(manager, principal.apiKeyId, settings);
      return { ...sent, ...(aiModelApiKey ? { aiModelsConfig: this.masked(settings.aiModelKeysEnc!) } : {}) };
    });
  }

  private masked(keys: Record<string, string>): Record<string, { displayText: string }> {
    return Object.fromEntries(Object.entries(keys).map(([provider, encrypted]) => [provider, { displayText: maskSecret(this.secrets.decrypt(encrypted)) }]));
  }
}
