import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { parseCookie } from 'cookie';
import { AppConfig } from '../../config/app-config.js';
import { AUTH_METADATA, type AuthLevel, OPERATION_METADATA, type OperationOptions } from '../decorators/operation.decorator.js';
import { ApiError, INVALID_CREDENTIALS } from '../errors.js';
import type { ServiceRequest } from '../request-context.js';
import { safeEqual } from '../secrets.js';
import { CredentialVerifier } from './credential-verifier.js';
import type { ConsoleSessionCheck } from '../request-context.js';

/** The console's session cookie (HttpOnly: page scripts never read it). */
export const CONSOLE_SESSION_COOKIE = 'console_session';
/** The header carrying a console session's CSRF token on every request that may change something. */
export const CONSOLE_CSRF_HEADER = 'x-console-csrf';

const CONSOLE_REFUSED = 'Console session missing, expired or signed out.';
const CONSOLE_CSRF_REFUSED = 'Console request refused: it must come from the console itself, with its x-console-csrf header.';

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
 *
 * The console signs in once and then calls the same operations as every client, with its
 * session cookie instead of a token: an API-key or workspace operation sent without its auth
 * token but with a live session is the owner's when the session's account owns the key's (or
 * the named) workspace, and gets the same principal a token would give, so rules, limits and
 * tenant scoping are the same. Such a request must also carry the session's CSRF token in
 * `x-console-csrf` and must not come from another site (`Origin`, `Sec-Fetch-Site`).
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
      case 'console': {
        const operation = this.reflector.get<OperationOptions | undefined>(OPERATION_METADATA, context.getHandler());
        request.consoleSession = await this.consoleSession(request, { csrf: operation?.consoleSessionRead !== true });
        return true;
      }
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
    if (authToken === undefined && hasConsoleCookie(request)) {
      const session = await this.consoleSession(request, { csrf: true });
      const principal = await this.verifier.consoleApiKey(session, apiKey);
      if (!principal) throw new ApiError('PERMISSION_DENIED', INVALID_CREDENTIALS);
      request.apiKeyPrincipal = principal;
      request.consoleSession = session;
      return;
    }
    if (authToken === undefined) throw new ApiError('INVALID_ARGUMENT', 'Auth token not found in headers.');
    const principal = await this.verifier.verifyApiKey(apiKey, authToken);
    if (!principal) throw new ApiError('PERMISSION_DENIED', INVALID_CREDENTIALS);
    request.apiKeyPrincipal = principal;
  }

  private async authenticateWorkspace(request: ServiceRequest, distinctErrors: boolean): Promise<void> {
    const workspaceId = headerValue(request, this.headers.workspaceId);
    if (workspaceId === undefined) throw new ApiError('INVALID_ARGUMENT', 'Workspace ID not found in headers.');
    const authToken = headerValue(request, this.headers.workspaceAuthToken) ?? headerValue(request, this.headers.authToken);
    if (authToken === undefined && hasConsoleCookie(request)) {
      const session = await this.consoleSession(request, { csrf: true });
      if (!(await this.verifier.consoleOwnsWorkspace(session, workspaceId))) {
        throw distinctErrors ? new ApiError('NOT_FOUND', 'Workspace not found.') : new ApiError('PERMISSION_DENIED', 'Invalid workspace credentials.');
      }
      request.workspacePrincipal = { workspaceId, viaConsole: true };
      request.consoleSession = session;
      return;
    }
    if (authToken === undefined) throw new ApiError('INVALID_ARGUMENT', 'Auth Token not found in headers.');
    const check = await this.verifier.verifyWorkspace(workspaceId, authToken);
    if (check !== 'valid') {
      if (!distinctErrors) throw new ApiError('PERMISSION_DENIED', 'Invalid workspace credentials.');
      if (check === 'unknown-workspace') throw new ApiError('NOT_FOUND', 'Workspace not found.');
      throw new ApiError('UNAUTHENTICATED', 'Invalid auth token for workspace.');
    }
    request.workspacePrincipal = { workspaceId };
  }

  /**
   * The request's live console session, or a refusal. `csrf`: the request may change something,
   * so it must carry the session's CSRF token; every console request is refused when a browser
   * says it comes from another site.
   */
  private async consoleSession(request: ServiceRequest, options: { csrf: boolean }): Promise<ConsoleSessionCheck> {
    if (crossSite(request)) throw new ApiError('PERMISSION_DENIED', CONSOLE_CSRF_REFUSED);
    const token = consoleCookie(request);
    const session = token === undefined ? undefined : await this.verifier.verifyConsoleSession(token);
    if (!session) throw new ApiError('UNAUTHENTICATED', CONSOLE_REFUSED);
    if (options.csrf) {
      const sent = headerValue(request, CONSOLE_CSRF_HEADER);
      if (sent === undefined || !safeEqual(sent, session.csrfToken)) throw new ApiError('PERMISSION_DENIED', CONSOLE_CSRF_REFUSED);
    }
    return session;
  }
}

function consoleCookie(request: ServiceRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const value = parseCookie(header)[CONSOLE_SESSION_COOKIE];
  return value === undefined || value === '' ? undefined : value;
}

function hasConsoleCookie(request: ServiceRequest): boolean {
  return consoleCookie(request) !== undefined;
}

/**
 * Whether a browser says the request comes from another site: `Sec-Fetch-Site: cross-site`, or
 * an `Origin` whose host is not the one the request was sent to. (The cookie is `SameSite=Strict`
 * too, so a browser would not send it along anyway; this refuses even one that did.)
 */
function crossSite(request: ServiceRequest): boolean {
  if (headerValue(request, 'sec-fetch-site') === 'cross-site') return true;
  const origin = headerValue(request, 'origin');
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== headerValue(request, 'host');
  } catch {
    return true;
  }
}

function headerValue(request: ServiceRequest, name: string): string | undefined {
  const value = request.headers[name];
  const single = Array.isArray(value) ? value[0] : value;
  return single === undefined || single.trim() === '' ? undefined : single.trim();
}
