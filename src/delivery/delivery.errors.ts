import { ApiError } from '../common/errors.js';

/** Errors of the advanced webhook message log (messages, attempts, replays). */
export const MessageErrors = {
  messageMissing: () => new ApiError('NOT_FOUND', 'Advanced webhook message not found.'),
  endpointDisabled: () => new ApiError('FAILED_PRECONDITION', 'The advanced webhook endpoint is disabled.'),
  windowEmpty: () => new ApiError('INVALID_ARGUMENT', 'data.until must be after data.since'),
};
