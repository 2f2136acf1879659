import { ApiError } from '../common/errors.js';

/** Errors of the console's pages (its operations answer the workspace module's). */
export const ConsoleErrors = {
  notBuilt: () => new ApiError('NOT_FOUND', 'The console is not built: run npm run build.'),
  fileMissing: () => new ApiError('NOT_FOUND', 'No such console file.'),
};
