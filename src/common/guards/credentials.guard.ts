import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppConfig } from '../../config/app-config.js';
import { AUTH_METADATA, type AuthLevel, OPERATION_METADATA, type OperationOptions } from '../decorators/operation.decorator.js';
import { ApiError } from '../errors.js';
import type { ServiceRequest } from '../request-context.js';
import { CredentialVerifier } from './credential-verifier.js';

/** Header names and messages of contract 1.3, with the configurable product part. */
export class CredentialHeaders {
  readonly apiKey: string;
  readonly authToken: string;
  readonly workspaceId: string;
  readonly workspaceAuthToken: string;

  constructor(product: string) {
    this.apiKey = `x-${product}-api-key`;
    this.authToken = `x-${product}-auth-token`;
    this.workspaceId = `x-${product}-workspace-id`;
    this.workspaceAuthToken = `x-${product}-workspace-auth-token`;
  }
}

/**
 * Runs before validation on every route (contract 1.1): reads the route's credential level and
 * attaches the principal, or refuses. A route that declares no level is refused (fail closed).
 */
@Injectable()
export class CredentialsGuard implements CanActivate {
  private readonly headers: CredentialHeaders;

  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: CredentialVerifier,
    config: AppConfig,
  ) {
    this.headers = new CredentialHeaders(config.headerProduct);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const level = this.reflector.getAllAndOverride<AuthLevel | undefined>(AUTH_METADATA, [context.getHandler(), context.getClass()]);
    const request = context.switchToHttp().getRequest<ServiceRequest>();
    switch (level) {
      case 'public':
        return true;
      case 'apiKey':
        await this.authenticateApiKey(request);
        return true;
      case 'workspace': {
        const operation = this.reflector.get<OperationOptions | undefined>(OPERATION_METADATA, context.getHandler());
        await this.authenticateWorkspace(request, operation?.distinctWorkspaceAuthErrors === true);
        return true;
      }
      default:
        throw new Error(`Route ${request.method} ${request.url} declares no auth level; refusing it.`);
    }
  }

  private async authenticateApiKey(request: ServiceRequest): Promise<void> {
    const apiKey = headerValue(request, this.headers.apiKey);
    if (apiKey === undefined) throw new ApiError('INVALID_ARGUMENT', 'API key not found in headers.');
    const authToken = headerValue(request, this.headers.authToken);
    if (authToken === undefined) throw new ApiError('INVALID_ARGUMENT', 'Auth token not found in headers.');
    const principal = await this.verifier.verifyApiKey(apiKey, authToken);
    if (!principal) throw new ApiError('PERMISSION_DENIED', 'Invalid API key or auth token.');
    request.apiKeyPrincipal = principal;
  }

  private async authenticateWorkspace(request: ServiceRequest, distinctErrors: boolean): Promise<void> {
    const workspaceId = headerValue(request, this.headers.workspaceId);
    if (workspaceId === undefined) throw new ApiError('INVALID_ARGUMENT', 'Workspace ID not found in headers.');
    const authToken = headerValue(request, this.headers.workspaceAuthToken) ?? headerValue(request, this.headers.authToken);
    if (authToken === undefined) throw new ApiError('INVALID_ARGUMENT', 'Auth Token not found in headers.');
    const check = await this.verifier.verifyWorkspace(workspaceId, authToken);
    if (check !== 'valid') {
      if (!distinctErrors) throw new ApiError('PERMISSION_DENIED', 'Invalid workspace credentials.');
      if (check === 'unknown-workspace') throw new ApiError('NOT_FOUND', 'Workspace not found.');
      throw new ApiError('UNAUTHENTICATED', 'Invalid auth token for workspace.');
    }
    request.workspacePrincipal = { workspaceId };
  }
}

function headerValue(request: ServiceRequest, name: string): string | undefined {
  const value = request.headers[name];
  const single = Array.isArray(value) ? value[0] : value;
  return single === undefined || single.trim() === '' ? undefined : single.trim();
}
