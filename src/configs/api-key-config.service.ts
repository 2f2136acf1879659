import { Injectable } from '@nestjs/common';
import type { AccessType } from '../common/access-types.js';
import type { ApiKeyPrincipal } from '../common/request-context.js';
import { Secrets } from '../common/secrets.js';
import { Transactions } from '../database/transactions.js';
import { AppConfig } from '../config/app-config.js';
import { ApiKeyStore } from '../workspace/api-key-store.js';
import { attachmentLimits, typeWithin, type AttachmentConfig } from '../workspace/attachment-limits.js';
import { stripUndefined, type KeySettings } from '../workspace/key-configs.js';
import { maskSecret } from './ai-model-keys.js';
import { ConfigErrors } from './configs.errors.js';
import type { AttachmentConfigUpdate, UpdateApiKeyConfigRequest } from './dto/config.dto.js';

/** Upstream's apikeyconfig answer: the key's owner, plan and settings; AI keys masked. */
export interface ApiKeyConfigView {
  ownerEmail: string;
  planInfo: { type: string };
  defaultDocumentAccessType: AccessType;
  isPrivateCommentsEnabled: boolean;
  requireJwtToken: boolean;
  requireAutoOrgUser: boolean;
  aiModelsConfig?: Record<string, { displayText: string }>;
  attachmentConfig: AttachmentConfigView;
}

/** The attachment limits a key's uploads get: its own within the service's (ours). */
export interface AttachmentConfigView {
  maxBytes: number;
  types: string[];
  isCustom: boolean;
}

/** What an update echoes: the post-write values of the fields sent. */
export type ApiKeyConfigEcho = Partial<Pick<KeySettings, 'enablePrivateComments' | 'requireJwtToken' | 'requireAutoOrgUser' | 'defaultDocumentAccessType'>> & {
  aiModelsConfig?: Record<string, { displayText: string }>;
  attachmentConfig?: AttachmentConfigView;
};

/** The settings part of the `api_key` row as upstream's `apikeyconfig` get/update pair shows it. */
@Injectable()
export class ApiKeyConfigService {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly transactions: Transactions,
    private readonly secrets: Secrets,
    private readonly config: AppConfig,
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
      attachmentConfig: this.attachmentView(settings.attachmentConfig),
    };
  }

  /** Merges the sent fields into the settings (nothing is removed), under the row's lock. */
  async update(principal: ApiKeyPrincipal, request: UpdateApiKeyConfigRequest): Promise<ApiKeyConfigEcho> {
    const { aiModelApiKey, attachmentConfig, ...flags } = request;
    const sent: ApiKeyConfigEcho = stripUndefined(flags);
    const attachmentChange = attachmentConfig && stripUndefined(attachmentConfig);
    if (attachmentChange) this.checkAttachmentChange(attachmentChange);
    if (!Object.keys(sent).length && !aiModelApiKey && !(attachmentChange && Object.keys(attachmentChange).length)) throw ConfigErrors.nothingToUpdate();
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
      if (attachmentChange) settings.attachmentConfig = mergeAttachmentConfig(settings.attachmentConfig, attachmentChange);
      await this.keys.saveSettings(manager, principal.apiKeyId, settings);
      return {
        ...sent,
        ...(aiModelApiKey ? { aiModelsConfig: this.masked(settings.aiModelKeysEnc!) } : {}),
        ...(attachmentChange ? { attachmentConfig: this.attachmentView(settings.attachmentConfig) } : {}),
      };
    });
  }

  /** A key's limits stay within the service's: a larger size or a wider type is refused, naming it. */
  private checkAttachmentChange(change: Partial<AttachmentConfigUpdate>): void {
    const service = this.config.attachments;
    if (typeof change.maxBytes === 'number' && change.maxBytes > service.maxBytes) throw ConfigErrors.attachmentMaxTooLarge(service.maxBytes);
    change.types?.forEach((type, i) => {
      if (!typeWithin(type.toLowerCase(), service.types)) throw ConfigErrors.attachmentTypeRefused(i, type);
    });
  }

  private attachmentView(own: AttachmentConfig | undefined): AttachmentConfigView {
    return {
      maxBytes: attachmentLimits(this.config.attachments, own).maxBytes,
      types: [...(own?.types ?? this.config.attachments.types)],
      isCustom: own?.maxBytes !== undefined || own?.types !== undefined,
    };
  }

  private masked(keys: Record<string, string>): Record<string, { displayText: string }> {
    return Object.fromEntries(Object.entries(keys).map(([provider, encrypted]) => [provider, { displayText: maskSecret(this.secrets.decrypt(encrypted)) }]));
  }
}

/** Sent fields over the stored limits; `null` takes a limit back to the service's (types lower-cased, as uploads' are). */
function mergeAttachmentConfig(stored: AttachmentConfig | undefined, change: Partial<AttachmentConfigUpdate>): AttachmentConfig | undefined {
  const next: AttachmentConfig = { ...stored };
  if (change.maxBytes === null) delete next.maxBytes;
  else if (change.maxBytes !== undefined) next.maxBytes = change.maxBytes;
  if (change.types === null) delete next.types;
  else if (change.types !== undefined) next.types = change.types.map((type) => type.toLowerCase());
  return Object.keys(next).length ? next : undefined;
}
