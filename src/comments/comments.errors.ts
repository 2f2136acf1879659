import { ApiError } from '../common/errors.js';

/** The texts comment operations answer with, in errors and in per-item outcomes. */
export const CommentMessages = {
  updated: 'Updated successfully',
  deleted: 'Deleted successfully',
  notFound: 'Not found',
  threadNotFound: 'Annotation not found.',
} as const;

/** Errors of comment threads, comments and reactions. */
export const CommentErrors = {
  threadNotFound: () => new ApiError('NOT_FOUND', CommentMessages.threadNotFound),
  commentNotFound: () => new ApiError('NOT_FOUND', 'Comment not found.'),
  tooManyReactions: (max: number) => new ApiError('FAILED_PRECONDITION', `A comment has at most ${max} reactions.`),
  usersDenied: (outcomes: Record<string, unknown>) => new ApiError('PERMISSION_DENIED', 'One or more users do not have access to the document.', outcomes),
  oneAgentFilter: (given: readonly string[]) =>
    new ApiError('INVALID_ARGUMENT', `Only one agent filter may be supplied per request (got ${given.join(', ')}).`),
  nothingToUpdate: () => new ApiError('INVALID_ARGUMENT', 'At least one of data.updatedData or data.updateUsers is required.'),
  agentUrlsNameNoPage: () => new ApiError('INVALID_ARGUMENT', 'data.agentUrls names no page.'),
  agentFieldInvalid: (index: number) =>
    new ApiError('INVALID_ARGUMENT', `data.agentFields[${index}] must be agent:<agentId>, execution:<executionId> or source:<velt|external>`),
  agentFieldsEmpty: () => new ApiError('INVALID_ARGUMENT', 'data.agentFields must not be empty'),
};
