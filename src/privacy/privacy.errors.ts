import { ApiError } from '../common/errors.js';

/** Errors of the user-data operations. */
export const PrivacyErrors = {
  /** An unknown job id, or another key's: a foreign id behaves as an unknown one (contract 1.4). */
  jobNotFound: () => new ApiError('NOT_FOUND', 'Data deletion job not found.'),
};
