import { ApiError } from '../common/errors.js';

/** Errors of the activity log. */
export const ActivityErrors = {
  deleteNeedsSelection: () => new ApiError('INVALID_ARGUMENT', 'At least one of data.documentId, data.activityIds or data.targetEntityId is required.'),
};
