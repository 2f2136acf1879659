import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { ApiKeyPrincipal as ApiKeyCaller, ServiceRequest, WorkspacePrincipal as WorkspaceCaller } from '../request-context.js';

/** The authenticated API key of an `auth: 'apiKey'` operation. */
export const ApiKeyPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): ApiKeyCaller => {
  const principal = context.switchToHttp().getRequest<ServiceRequest>().apiKeyPrincipal;
  if (!principal) throw new Error('ApiKeyPrincipal used on an operation that is not auth: apiKey.');
  return principal;
});

/** The authenticated workspace of an `auth: 'workspace'` operation. */
export const WorkspacePrincipal = createParamDecorator((_: unknown, context: ExecutionContext): WorkspaceCaller => {
  const principal = context.switchToHttp().getRequest<ServiceRequest>().workspacePrincipal;
  if (!principal) throw new Error('WorkspacePrincipal used on an operation that is not auth: workspace.');
  return principal;
});

/** The client's address (behind `TRUST_PROXY`, the nearest untrusted one): what per-address limits count by. */
export const ClientIp = createParamDecorator((_: unknown, context: ExecutionContext): string =>
  String(context.switchToHttp().getRequest<ServiceRequest>().ip ?? ''),
);
