import { ApiError } from '../common/errors.js';

/** Errors of contract part 5. */
export const AccessErrors = {
  tooManyResources: (max: number) => new ApiError('INVALID_ARGUMENT', `data.folderIds and data.documentIds together must contain at most ${max} items`),
  organizationMissing: () => new ApiError('NOT_FOUND', 'Organization does not exist'),
  resourcesMissing: (details: Record<string, unknown>) => new ApiError('NOT_FOUND', 'Folder or document does not exist', details),
  expiresInPast: () => new ApiError('INVALID_ARGUMENT', 'expiresAt must be in the future.'),
  organizationIdRequired: (path: string) => new ApiError('INVALID_ARGUMENT', `${path} must be a non-empty string`),
  explainOneResource: () => new ApiError('INVALID_ARGUMENT', 'Exactly one of data.documentId and data.folderId is required.'),
  contextNeedsOrganization: () => new ApiError('INVALID_ARGUMENT', 'data.organizationId is required with data.context.'),
};
