import { ApiError } from '../common/errors.js';

/** Errors of attachment uploads (multipart and pre-signed) and downloads. */
export const AttachmentErrors = {
  notMultipart: () => new ApiError('INVALID_ARGUMENT', 'The request must be multipart/form-data with one `file` part.'),
  noFile: () => new ApiError('INVALID_ARGUMENT', 'file is required: send the file as a part named `file`.'),
  tooLarge: (max: number) => new ApiError('INVALID_ARGUMENT', `file exceeds the limit of ${max} bytes.`, undefined, { httpStatus: 413 }),
  multipartUnreadable: (reason: string) => new ApiError('INVALID_ARGUMENT', `The multipart body could not be read: ${reason}`),
  bodyUnreadable: (reason: string) => new ApiError('INVALID_ARGUMENT', `The request body could not be read: ${reason}`),
  formFieldMissing: (name: string) => new ApiError('INVALID_ARGUMENT', `${name} is required (a form field).`),
  formFieldInvalid: (name: string, problem: string) => new ApiError('INVALID_ARGUMENT', `${name} ${problem}`),
  typeRefused: (mimeType: string, list: string) => new ApiError('INVALID_ARGUMENT', `file type ${mimeType} is not accepted (${list}).`),
  linkInvalid: () => new ApiError('PERMISSION_DENIED', 'This download link is not valid.'),
  linkExpired: () => new ApiError('PERMISSION_DENIED', 'This download link has expired.'),
  gone: () => new ApiError('NOT_FOUND', 'Attachment not found.'),
  uploadInvalid: () => new ApiError('PERMISSION_DENIED', 'This upload URL is not valid.'),
  uploadExpired: () => new ApiError('PERMISSION_DENIED', 'This upload URL has expired.'),
  uploadUsed: () => new ApiError('ALREADY_EXISTS', 'This upload URL has already been used.'),
};
