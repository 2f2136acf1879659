import { ApiError, INVALID_CREDENTIALS, type ApiErrorOptions } from '../common/errors.js';
import { LIMIT_MESSAGE } from '../common/rate-limit/rate-limit.guard.js';
import { WORKSPACE_PLANS } from './plans.js';

/** The success messages of domains add and remove, which their partial outcomes extend. */
export const DOMAINS_ADDED_MESSAGE = 'Domain(s) added successfully to allowed domains.';
export const DOMAINS_REMOVED_MESSAGE = 'Domain(s) removed successfully from allowed domains.';

/** Errors of the workspace module (contract part 2). */
export const WorkspaceErrors = {
  apiKeyNotFound: () => new ApiError('NOT_FOUND', 'API key not found.'),
  workspaceNotFound: () => new ApiError('NOT_FOUND', 'Workspace not found.'),
  disposableEmail: () => new ApiError('INVALID_ARGUMENT', 'This email domain is not supported.'),
  tooManyWorkspaces: (max: number) =>
    new ApiError('RESOURCE_EXHAUSTED', `An owner e-mail may own at most ${max} workspaces.`, undefined, { retryAfterSeconds: 3600 }),
  productionNotEnabled: () => new ApiError('PERMISSION_DENIED', 'This workspace is not enabled for self-serve production API key creation.'),
  productionNeedsPaidPlan: () => new ApiError('FAILED_PRECONDITION', 'Production API keys require a workspace on a paid plan.'),
  productionKeyLimit: (max: number) =>
    new ApiError('RESOURCE_EXHAUSTED', `This workspace has reached its maximum of ${max} production API keys.`, undefined, {
      retryAfterSeconds: 3600,
    }),
  invalidDomain: (path: string, value: string) => new ApiError('INVALID_ARGUMENT', `${path} is not a valid domain: ${JSON.stringify(value.slice(0, 100))}`),
  invalidContinueUrl: () => new ApiError('INVALID_ARGUMENT', 'Invalid url for continueUrl'),
  continueUrlNotAllowed: () => new ApiError('INVALID_ARGUMENT', 'The continueUrl domain is not allowed.'),
  invalidLoginToken: () => new ApiError('PERMISSION_DENIED', 'Invalid or expired login token.'),
  emailNotFound: () => new ApiError('NOT_FOUND', 'Email not found.'),
  /** The contract's INTERNAL for a partly skipped add: the new domains are committed. */
  domainsPartlyAdded: (domainsAdded: string[], skippedDomains: string[]) =>
    new ApiError('INTERNAL', `${DOMAINS_ADDED_MESSAGE} Skipped existing domains.`, { domainsAdded, skippedDomains }),
  domainsPartlyRemoved: (domainsRemoved: string[], skippedDomains: string[]) =>
    new ApiError('INTERNAL', `${DOMAINS_REMOVED_MESSAGE} Skipped non-existing domains.`, { domainsRemoved, skippedDomains }),
  /** A v1 token request with a wrong key or auth token (with the failure limit's state when one counts). */
  credentialsInvalid: (rateLimit?: ApiErrorOptions['rateLimit']) =>
    new ApiError('PERMISSION_DENIED', INVALID_CREDENTIALS, undefined, rateLimit ? { rateLimit } : undefined),
  tokenRequestsLimited: (retryAfterSeconds?: number, rateLimit?: ApiErrorOptions['rateLimit']) =>
    new ApiError('RESOURCE_EXHAUSTED', LIMIT_MESSAGE, undefined, retryAfterSeconds === undefined ? undefined : { retryAfterSeconds, rateLimit }),
  userTokenInvalid: () => new ApiError('PERMISSION_DENIED', 'Invalid or expired token.'),
  unknownPlan: (plan: string) =>
    new ApiError('INVALID_ARGUMENT', `plan must be one of ${WORKSPACE_PLANS.join(', ')}, not ${JSON.stringify(plan.slice(0, 100))}`),
};

/** Per-workspace and per-owner quotas (contract 1.5). */
export const WORKSPACE_LIMITS = { workspacesPerOwnerEmail: 5, productionKeysPerWorkspace: 3 } as const;
