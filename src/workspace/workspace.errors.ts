import { ApiError } from '../common/errors.js';
import { WORKSPACE_PLANS } from './plans.js';

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
  unknownPlan: (plan: string) =>
    new ApiError('INVALID_ARGUMENT', `plan must be one of ${WORKSPACE_PLANS.join(', ')}, not ${JSON.stringify(plan.slice(0, 100))}`),
};

/** Per-workspace and per-owner quotas (contract 1.5). */
export const WORKSPACE_LIMITS = { workspacesPerOwnerEmail: 5, productionKeysPerWorkspace: 3 } as const;
