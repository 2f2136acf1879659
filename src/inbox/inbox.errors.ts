import { ApiError } from '../common/errors.js';

/** Errors of the in-app inbox (notifications add, get and delete). */
export const InboxErrors = {
  templateRequired: (field: string) => new ApiError('INVALID_ARGUMENT', `data.${field} is required unless data.isNotificationResolverUsed is true`),
  documentOrUserRequired: () => new ApiError('INVALID_ARGUMENT', 'At least one of data.documentId or data.userId is required.'),
  deleteNeedsSelection: () =>
    new ApiError('INVALID_ARGUMENT', 'At least one of data.documentId, data.locationId, data.userId or data.notificationIds is required.'),
};
