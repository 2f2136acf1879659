import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newApiKey } from '../common/ids.js';
import { PageTokens } from '../common/paging.js';
import type { WorkspacePrincipal } from '../common/request-context.js';
import { Secrets } from '../common/secrets.js';
import { Transactions } from '../database/transactions.js';
import { AllowedDomainStore } from './allowed-domain-store.js';
import { ApiKeyStore, type ApiKeyRecord, type NewApiKey } from './api-key-store.js';
import { ConfigCodec } from './config-codec.js';
import { CredentialsService, type IssuedToken } from './credentials.service.js';
import { DomainsService } from './domains.service.js';
import type { ApiKeyView } from './dto/workspace.response.js';
import type { CreateApiKeyRequest, ListApiKeysRequest } from './dto/api-key.dto.js';
import {
  applyEmailConfigChange,
  applyNotificationConfigChange,
  applyWebhookConfigChange,
  defaultKeySettings,
  neverConfiguredEmail,
  neverConfiguredNotification,
  neverConfiguredWebhook,
} from './key-configs.js';
import { displayLocalPart } from './display-name.js';
import { WORKSPACE_LIMITS, WorkspaceErrors } from './workspace.errors.js';
import { WorkspaceStore, type WorkspaceRecord } from './workspace-store.js';

export interface CreatedApiKey {
  apiKey: string;
  authToken?: string;
}

export interface ApiKeyPage {
  data: ApiKeyView[];
  nextPageToken?: string;
}

/** API keys of a workspace and their auth tokens (contract part 2). */
@Injectable()
export class ApiKeyService {
  constructor(
    private readonly transactions: Transactions,
    private readonly workspaces: WorkspaceStore,
    private readonly credentials: CredentialsService,
    private readonly domains: DomainsService,
    private readonly allowedDomains: AllowedDomainStore,
    private readonly secrets: Secrets,
    private readonly codec: ConfigCodec,
    private readonly pageTokens: PageTokens,
    private readonly keys: ApiKeyStore,
  ) {}

  /**
   * Checks in the contract's order (after credentials and field validation): production keys
   * need self-serve (PERMISSION_DENIED), a paid plan (FAILED_PRECONDITION) and room under the
   * limit (RESOURCE_EXHAUSTED).
   */
  async create(principal: WorkspacePrincipal, request: CreateApiKeyRequest): Promise<CreatedApiKey> {
    const allowedDomains = this.domains.normaliseAll(request.allowedDomains ?? [], 'data.allowedDomains');
    return this.transactions.run(async (manager) => {
      // Key creations of one workspace take turns on its row, so the production-key limit holds under concurrency.
      const workspace = await this.workspaces.lockWorkspace(manager, principal.workspaceId);
      if (!workspace) throw WorkspaceErrors.workspaceNotFound();
      if (request.type === 'production') {
        if (!workspace.selfServeProductionKeys) throw WorkspaceErrors.productionNotEnabled();
        if (workspace.plan !== 'paid') throw WorkspaceErrors.productionNeedsPaidPlan();
        const production = await this.keys.productionKeyCount(manager, workspace.id);
        if (production >= WORKSPACE_LIMITS.productionKeysPerWorkspace) {
          throw WorkspaceErrors.productionKeyLimit(WORKSPACE_LIMITS.productionKeysPerWorkspace);
        }
      }
      return this.createInTransaction(manager, workspace, { ...request, allowedDomains });
    });
  }

  /** Inserts a key with its configs initialised from the creation options, as the config updates would. */
  async createInTransaction(manager: EntityManager, workspace: WorkspaceRecord, request: CreateApiKeyRequest): Promise<CreatedApiKey> {
    const id = newApiKey();
    const type = request.type;
    const key: NewApiKey = {
      id,
      workspaceId: workspace.id,
      name: request.apiKeyName?.trim() || `${displayLocalPart(request.ownerEmail)} ${type === 'production' ? 'Production' : 'Test'} API Key`,
      type,
      ownerEmail: request.ownerEmail.trim().toLowerCase(),
      // Validated for both types, stored only where they mean something (contract part 2).
      persistenceDbRegion: type === 'production' ? (request.persistenceDBRegion ?? null) : null,
      realtimeDbRegion: type === 'production' ? (request.realtimeDBRegion ?? null) : null,
      configs: {
        email: applyEmailConfigChange(neverConfiguredEmail(), this.codec.emailChange(request.useEmailService, request.emailServiceConfig), {
          seedTriggers: request.setDefaultEmailTriggers,
        }),
        webhook: applyWebhookConfigChange(neverConfiguredWebhook(), this.codec.webhookChange(request.useWebhookService, request.webhookServiceConfig)),
        notification: applyNotificationConfigChange(
          neverConfiguredNotification(),
          { useNotificationService: request.useNotificationService },
          { seedTriggers: request.setDefaultNotificationTriggers },
        ),
        advanced: null,
      },
      settings: {
        ...defaultKeySettings(),
        enablePrivateComments: request.enablePrivateComments ?? false,
        requireAutoOrgUser: request.requireAutoOrgUser ?? false,
      },
      createdAt: Date.now(),
    };
    await this.keys.insert(manager, key);
    const domains = [...(request.allowedDomains ?? [])];
    if (request.addLocalHostToAllowedDomains) domains.push('localhost');
    await this.allowedDomains.insertNew(manager, id, domains, Date.now());
    const issued = request.createAuthToken ? await this.credentials.issueApiKeyToken(manager, id) : undefined;
    return issued ? { apiKey: id, authToken: issued.token } : { apiKey: id };
  }

  /** Keyset pages over (createdAt, id), so keys created while paging never repeat. */
  async list(principal: WorkspacePrincipal, request: ListApiKeysRequest): Promise<ApiKeyPage> {
    const pageSize = request.pageSize ?? 100;
    const filters = { apiKeys: request.apiKeys ?? null };
    const after = request.pageToken ? this.pageTokens.decode<[number, string]>(principal.workspaceId, 'apikeys/get', filters, request.pageToken) : undefined;
    const rows = await this.keys.page(principal.workspaceId, { ids: request.apiKeys, after, limit: pageSize + 1 });
    const page = this.pageTokens.page(rows, pageSize, principal.workspaceId, 'apikeys/get', filters, (last) => [last.createdAt, last.id]);
    return { data: page.items.map((key) => ({ id: key.id, apiKeyName: key.name, type: key.type })), nextPageToken: page.next };
  }

  async rename(principal: WorkspacePrincipal, apiKey: string, name: string): Promise<void> {
    await this.transactions.run(async (manager) => {
      if (!(await this.keys.rename(manager, principal.workspaceId, apiKey, name.trim()))) throw WorkspaceErrors.apiKeyNotFound();
    });
  }

  async authTokens(principal: WorkspacePrincipal, apiKey: string): Promise<{ apiKey: string; authTokens: IssuedToken[] }> {
    await this.requireOwnKey(principal, apiKey);
    const tokens = await this.keys.tokensOf(apiKey);
    // Through the console, a token shows only its start (enough to tell tokens apart): the page
    // never holds a usable credential but the one a reset shows once.
    const shown = (token: string) => (principal.viaConsole ? tokenStart(token) : token);
    return { apiKey, authTokens: tokens.map((t) => ({ token: shown(this.secrets.decrypt(t.tokenEnc)), name: t.name, domains: t.domains })) };
  }

  /** Replaces every token of the key with a new one in one transaction: old tokens stop working at once. */
  async resetAuthToken(principal: WorkspacePrincipal, apiKey: string): Promise<{ apiKey: string; newAuthToken: IssuedToken }> {
    return this.transactions.run(async (manager) => {
      if (!(await this.keys.belongsTo(principal.workspaceId, apiKey, manager))) throw WorkspaceErrors.apiKeyNotFound();
      await this.keys.deleteTokens(manager, apiKey);
      return { apiKey, newAuthToken: await this.credentials.issueApiKeyToken(manager, apiKey) };
    });
  }

  /**
   * Operator listing (admin CLI): the newest keys, revoked ones too, newest first; only the
   * workspace's when given (NOT_FOUND when there is no such workspace).
   */
  async newest(options: { workspaceId?: string; limit?: number }): Promise<ApiKeyRecord[]> {
    if (options.workspaceId !== undefined && !(await this.workspaces.workspace(options.workspaceId))) throw WorkspaceErrors.workspaceNotFound();
    return this.keys.newest(options);
  }

  /**
   * Operator action (admin CLI): revokes a key for good. Its auth tokens are deleted and it is
   * gone for every caller as an unknown key is (its credentials, the workspace's listings and
   * operations, the console, live rooms), while its data stays stored. NOT_FOUND when there is no
   * such key; revoking a revoked key changes nothing and answers when it was revoked.
   */
  async revoke(apiKey: string): Promise<{ revokedAt: number; already: boolean }> {
    return this.transactions.run(async (manager) => {
      const revoked = await this.keys.revoke(manager, apiKey, Date.now());
      if (!revoked) throw WorkspaceErrors.apiKeyNotFound();
      return revoked;
    });
  }

  /** Operator view of one key, revoked or live (admin CLI); NOT_FOUND when there is none. */
  async record(apiKey: string): Promise<ApiKeyRecord> {
    const key = await this.keys.record(apiKey);
    if (!key) throw WorkspaceErrors.apiKeyNotFound();
    return key;
  }

  /**
   * Operator view of one key (admin CLI), NOT_FOUND when there is none: the key and its auth
   * tokens, each shown only by its start (enough to tell tokens apart, never a usable credential).
   */
  async details(apiKey: string): Promise<{ key: ApiKeyRecord; authTokens: { start: string; name: string; domains: string[]; createdAt: number }[] }> {
    const key = await this.record(apiKey);
    const tokens = await this.keys.tokensOf(apiKey);
    return {
      key,
      authTokens: tokens.map((t) => ({ start: tokenStart(this.secrets.decrypt(t.tokenEnc)), name: t.name, domains: t.domains, createdAt: t.createdAt })),
    };
  }

  private async requireOwnKey(principal: WorkspacePrincipal, apiKey: string): Promise<void> {
    if (!(await this.keys.belongsTo(principal.workspaceId, apiKey))) throw WorkspaceErrors.apiKeyNotFound();
  }
}

/** The start of a token, as the console and the admin CLI show one: enough to tell tokens apart, never the credential. */
function tokenStart(token: string): string {
  return `${token.slice(0, 8)}…`;
}
