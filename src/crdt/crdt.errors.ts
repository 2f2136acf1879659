import { ApiError } from '../common/errors.js';

/** Errors of the CRDT editors (REST and live). */
export const CrdtErrors = {
  exists: () => new ApiError('ALREADY_EXISTS', 'CRDT data already exists for this editor ID.'),
  missing: () => new ApiError('NOT_FOUND', 'No CRDT data found for this editor ID.'),
  tooLarge: (max: number) => new ApiError('INVALID_ARGUMENT', `CRDT data must be at most ${max} bytes as JSON per editor.`),
  badUpdate: (reason: string) => new ApiError('INVALID_ARGUMENT', `data.update is not a valid Yjs update: ${reason}`),
  badStateVector: () => new ApiError('INVALID_ARGUMENT', 'data.stateVector is not a valid Yjs state vector.'),
  otherShape: (field: 'type' | 'contentKey', stored: string) =>
    new ApiError('INVALID_ARGUMENT', `data.${field} must be "${stored}", as when this editor was added.`),
  /** `data` does not match the editor's `type` (the contract's message, from `dataProblem`). */
  dataMismatch: (problem: string) => new ApiError('INVALID_ARGUMENT', problem),
};
