import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../common/decorators/operation.decorator.js';
import { ApiKeyPrincipal, WorkspacePrincipal } from '../common/decorators/principal.decorator.js';
import { RequestData } from '../common/decorators/request-data.decorator.js';
import { EmptyRequest } from '../common/empty-request.dto.js';
import { WithMessage } from '../common/envelope.js';
import type { ApiKeyPrincipal as ApiKeyCaller, WorkspacePrincipal as WorkspaceCaller } from '../common/request-context.js';
import { ApiKeyService, type ApiKeyPage, type CreatedApiKey } from './api-key.service.js';
import type { IssuedToken } from './credentials.service.js';
import { DomainsService } from './domains.service.js';
import { ApiKeyRequest, CreateApiKeyRequest, DomainsRequest, ListApiKeysRequest, UpdateApiKeyRequest } from './dto/api-key.dto.js';
import { EmailStatusRequest, SendLoginLinkRequest, VerifyLoginRequest } from './dto/login.dto.js';
import { CreateWorkspaceRequest } from './dto/workspace.dto.js';
import { LoginService } from './login.service.js';
import { ApiKeysResult, AuthTokenResetResult, AuthTokensResult, CreatedApiKeyResult } from './dto/api-key.response.js';
import { AllowedDomainsResult, DomainsAddedResult, DomainsRemovedResult } from './dto/domains.response.js';
import { EmailStatusResult, LoginResult, WorkspaceResult, type WorkspaceView } from './dto/workspace.response.js';
import { NullDataResult } from '../common/openapi-responses.js';
import { WorkspaceService } from './workspace.service.js';
import { WORKSPACE_LIMITS, WorkspaceErrors } from './workspace.errors.js';
import { DOMAINS_ADDED_MESSAGE, DOMAINS_REMOVED_MESSAGE } from './workspace.errors.js';

/** Upstream's two wordings of email/status; the answer carries the one that applies. */
const EMAIL_VERIFIED = 'Email verified and workspace reactivated';
const EMAIL_NOT_VERIFIED = 'Email not yet verified';

/** Workspace, API keys, credentials, allowed domains and login link (contract part 2). */
@ApiTags('workspace')
@Controller()
export class WorkspaceController {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly apiKeys: ApiKeyService,
    private readonly domains: DomainsService,
    private readonly login: LoginService,
  ) {}

  @Operation('/v2/workspace/create', {
    summary: 'Creates a workspace with its owner, its auth token and a first (testing) API key.',
    example: { ownerEmail: 'owner@acme.example', name: 'Olivia Owner', workspaceName: 'Acme' },

    auth: 'public',
    message: 'Workspace created successfully',
    rateLimits: ['workspaceCreate'],
    response: WorkspaceResult,
    errors: [WorkspaceErrors.disposableEmail(), WorkspaceErrors.tooManyWorkspaces(WORKSPACE_LIMITS.workspacesPerOwnerEmail)],
  })
  async create(@RequestData() data: CreateWorkspaceRequest): Promise<WorkspaceView> {
    return (await this.workspaces.create(data)).workspace;
  }

  @Operation('/v2/workspace/get', {
    summary: 'Reads the workspace of the credentials: owner, auth token and API keys.',

    auth: 'workspace',
    message: 'Workspace retrieved successfully',
    rateLimits: ['workspaceGet'],
    distinctWorkspaceAuthErrors: true,
    response: WorkspaceResult,
    errors: ['NOT_FOUND', 'UNAUTHENTICATED'],
  })
  get(@WorkspacePrincipal() caller: WorkspaceCaller, @RequestData() _data: EmptyRequest): Promise<WorkspaceView> {
    return this.workspaces.get(caller);
  }

  @Operation('/v2/workspace/apikey/create', {
    summary: 'Creates another API key in the workspace, optionally with its first auth token.',
    example: { ownerEmail: 'owner@acme.example', type: 'testing', apiKeyName: 'Acme staging', createAuthToken: true, allowedDomains: ['staging.acme.example'] },

    auth: 'workspace',
    message: 'API key created successfully.',
    response: CreatedApiKeyResult,
    errors: [
      WorkspaceErrors.productionNotEnabled(),
      WorkspaceErrors.productionNeedsPaidPlan(),
      WorkspaceErrors.productionKeyLimit(WORKSPACE_LIMITS.productionKeysPerWorkspace),
    ],
  })
  createApiKey(@WorkspacePrincipal() caller: WorkspaceCaller, @RequestData() data: CreateApiKeyRequest): Promise<CreatedApiKey> {
    return this.apiKeys.create(caller, data);
  }

  @Operation('/v2/workspace/apikeys/get', {
    summary: "Lists the workspace's API keys, a page at a time.",
    example: { pageSize: 20 },
    auth: 'workspace',
    message: 'API keys retrieved successfully.',
    result: 'fields',
    response: ApiKeysResult,
  })
  listApiKeys(@WorkspacePrincipal() caller: WorkspaceCaller, @RequestData() data: ListApiKeysRequest): Promise<ApiKeyPage> {
    return this.apiKeys.list(caller, data);
  }

  @Operation('/v2/workspace/apikey/update', {
    summary: 'Renames an API key of the workspace.',
    example: { apiKey: 'k3Hq8mZrT4wXv9bNc2LdY7eP', apiKeyName: 'Acme staging (EU)' },
    exampleFrom: { '/apiKey': { operation: '/v2/workspace/apikey/create', answer: '/result/data/apiKey' } },
    auth: 'workspace',
    message: 'API key updated successfully.',
    response: NullDataResult,
    errors: [WorkspaceErrors.apiKeyNotFound()],
  })
  async updateApiKey(@WorkspacePrincipal() caller: WorkspaceCaller, @RequestData() data: UpdateApiKeyRequest): Promise<null> {
    await this.apiKeys.rename(caller, data.apiKey, data.apiKeyName);
    return null;
  }

  @Operation('/v2/workspace/authtokens/get', {
    summary: "Lists an API key's auth tokens (secrets).",
    example: { apiKey: 'k3Hq8mZrT4wXv9bNc2LdY7eP' },
    exampleFrom: { '/apiKey': { operation: '/v2/workspace/apikey/create', answer: '/result/data/apiKey' } },

    auth: 'workspace',
    message: 'Auth tokens retrieved successfully.',
    response: AuthTokensResult,
    errors: [WorkspaceErrors.apiKeyNotFound()],
  })
  authTokens(@WorkspacePrincipal() caller: WorkspaceCaller, @RequestData() data: ApiKeyRequest): Promise<{ apiKey: string; authTokens: IssuedToken[] }> {
    return this.apiKeys.authTokens(caller, data.apiKey);
  }

  @Operation('/v2/workspace/authtoken/reset', {
    summary: 'Replaces every auth token of an API key with one new token: the old ones stop working at once.',
    example: { apiKey: 'k3Hq8mZrT4wXv9bNc2LdY7eP' },
    exampleFrom: { '/apiKey': { operation: '/v2/workspace/apikey/create', answer: '/result/data/apiKey' } },

    auth: 'workspace',
    message: 'Auth token reset successfully.',
    response: AuthTokenResetResult,
    errors: [WorkspaceErrors.apiKeyNotFound()],
  })
  resetAuthToken(@WorkspacePrincipal() caller: WorkspaceCaller, @RequestData() data: ApiKeyRequest): Promise<{ apiKey: string; newAuthToken: IssuedToken }> {
    return this.apiKeys.resetAuthToken(caller, data.apiKey);
  }

  @Operation('/v2/workspace/domains/add', {
    summary: "Adds domains to the API key's allowed domains (URLs or bare domains, `*.` wildcards).",
    example: { domains: ['app.acme.example', 'https://docs.acme.example'] },
    aliasExamples: { '/v1/workspace/domains/add': { domains: ['*.preview.acme.example'] } },

    aliases: ['/v1/workspace/domains/add'],
    auth: 'apiKey',
    message: DOMAINS_ADDED_MESSAGE,
    response: DomainsAddedResult,
  })
  addDomains(@ApiKeyPrincipal() caller: ApiKeyCaller, @RequestData() data: DomainsRequest): Promise<{ domainsAdded: string[] }> {
    return this.domains.add(caller, data.domains);
  }

  @Operation('/v2/workspace/domains/get', {
    summary: "Lists the API key's allowed domains.",
    auth: 'apiKey',
    message: 'Allowed domains retrieved successfully.',
    response: AllowedDomainsResult,
  })
  getDomains(@ApiKeyPrincipal() caller: ApiKeyCaller, @RequestData() _data: EmptyRequest): Promise<{ allowedDomains: string[] }> {
    return this.domains.list(caller);
  }

  @Operation('/v2/workspace/domains/delete', {
    summary: "Removes domains from the API key's allowed domains.",
    example: { domains: ['https://docs.acme.example'] },
    aliasExamples: { '/v1/workspace/domains/delete': { domains: ['*.preview.acme.example'] } },

    aliases: ['/v1/workspace/domains/delete'],
    auth: 'apiKey',
    message: DOMAINS_REMOVED_MESSAGE,
    response: DomainsRemovedResult,
  })
  deleteDomains(@ApiKeyPrincipal() caller: ApiKeyCaller, @RequestData() data: DomainsRequest): Promise<{ domainsRemoved: string[] }> {
    return this.domains.remove(caller, data.domains);
  }

  @Operation('/v2/workspace/email/send-login-link', {
    summary: 'Mails a single-use sign-in link to a workspace owner (answered alike whether or not the address owns one).',
    example: { email: 'owner@acme.example', continueUrl: 'http://localhost:8080/console/' },

    auth: 'public',
    message: 'Login link sent successfully',
    rateLimits: ['loginLink', 'loginLinkEmail'],
    response: NullDataResult,
  })
  sendLoginLink(@RequestData() data: SendLoginLinkRequest): Promise<null> {
    return this.login.sendLink(data);
  }

  @Operation('/v2/workspace/email/status', {
    summary: 'Tells whether a workspace owner has opened a login link yet.',
    example: { ownerEmail: 'owner@acme.example' },

    auth: 'public',
    // Upstream's two wordings; the answer carries the one that applies (see `emailStatus`).
    message: EMAIL_NOT_VERIFIED,
    rateLimits: ['emailStatus'],
    response: EmailStatusResult,
    errors: [WorkspaceErrors.emailNotFound()],
  })
  emailStatus(@RequestData() data: EmailStatusRequest): Promise<WithMessage> {
    return this.login.emailStatus(data.ownerEmail).then((status) => new WithMessage(status, status.verified ? EMAIL_VERIFIED : EMAIL_NOT_VERIFIED));
  }

  @Operation('/v2/workspace/login/verify', {
    summary: "Signs an owner in with the login link's token (it works once), answering their workspaces.",
    example: { token: 'Vx1q2bT9fK3mZr8sLw0pYdE5hN7cJ4gA6uRiOkXyQeM' },

    auth: 'public',
    message: 'Login verified successfully.',
    rateLimits: ['loginVerify'],
    response: LoginResult,
    errors: [WorkspaceErrors.invalidLoginToken()],
  })
  verifyLogin(@RequestData() data: VerifyLoginRequest): Promise<{ email: string; workspaces: WorkspaceView[] }> {
    return this.login.verify(data.token);
  }
}
