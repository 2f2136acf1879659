import { ApiError } from '../common/errors.js';

/** Errors of memory's suggestions and judgments. */
export const MemoryErrors = {
  documentNeedsOrganization: () => new ApiError('INVALID_ARGUMENT', 'data.documentId requires data.organizationId.'),
  annotationNeedsOrganization: () => new ApiError('INVALID_ARGUMENT', 'data.annotationId requires data.organizationId.'),
  emptyQuery: () => new ApiError('INVALID_ARGUMENT', 'data.query must be a non-empty string'),
};
