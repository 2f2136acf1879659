import { ApiError, INVALID_CREDENTIALS } from '../common/errors.js';

/** Errors of contract part 3 and of the preference operations (6.4). */
export const ConfigErrors = {
  nothingSent: (fields: string[]) => new ApiError('INVALID_ARGUMENT', `At least one of ${fields.map((f) => `data.${f}`).join(', ')} is required.`),
  invalidEmail: () => new ApiError('INVALID_ARGUMENT', 'Invalid email service configuration.'),
  encryptWithoutKey: (path: string) => new ApiError('INVALID_ARGUMENT', `${path} is required when encryptData is true.`),
  advancedUnavailable: () => new ApiError('FAILED_PRECONDITION', 'Advanced webhooks are not available for this workspace.'),
  advancedNotConfigured: () => new ApiError('FAILED_PRECONDITION', 'Advanced webhooks are not configured for this workspace.'),
  advancedDisabled: () => new ApiError('FAILED_PRECONDITION', 'Advanced webhooks are disabled for this workspace.'),
  endpointMissing: () => new ApiError('NOT_FOUND', 'Advanced webhook provider request failed.'),
  endpointUidTaken: () => new ApiError('ALREADY_EXISTS', 'An advanced webhook endpoint with this uid already exists.'),
  endpointNothingSent: () => new ApiError('INVALID_ARGUMENT', 'At least one endpoint field besides data.endpointId is required.'),
  /** The guard admitted the key, but its row is gone (deleted meanwhile): answered as the guard would now. */
  keyGone: () => new ApiError('PERMISSION_DENIED', INVALID_CREDENTIALS),
  nothingToUpdate: () => new ApiError('INVALID_ARGUMENT', 'At least one field must be provided for update'),
  attachmentMaxTooLarge: (max: number) => new ApiError('INVALID_ARGUMENT', `data.attachmentConfig.maxBytes must be at most ${max} (ATTACHMENT_MAX_BYTES).`),
  attachmentTypeRefused: (index: number, type: string) =>
    new ApiError('INVALID_ARGUMENT', `data.attachmentConfig.types[${index}] ${type} is not accepted by the service (ATTACHMENT_TYPES).`),
  notificationServiceOff: () => new ApiError('FAILED_PRECONDITION', 'Notification service is not enabled for this API key.'),
};

/** What endpoint and message operations answer while advanced webhooks are off (`ConfigsService.requireAdvancedEnabled`), for their OpenAPI examples. */
export const ADVANCED_OFF = [ConfigErrors.advancedUnavailable(), ConfigErrors.advancedNotConfigured(), ConfigErrors.advancedDisabled()];
