import { ApiError } from '../common/errors.js';
import type { Undecryptable } from '../common/secrets-rekey.js';

/** Errors of master key rotation. */
export const RekeyErrors = {
  /** The refusal of a rotation whose current key does not open every value: each column, how many, and the first rows. */
  undecryptable: (undecryptable: readonly Undecryptable[]): ApiError => {
    const total = undecryptable.reduce((sum, failure) => sum + failure.count, 0);
    return new ApiError(
      'FAILED_PRECONDITION',
      [
        `The current master key does not decrypt ${total} stored value${total === 1 ? '' : 's'}; nothing was changed. Is it the key these were written with?`,
        ...undecryptable.map(
          (f) =>
            `  ${f.place}: ${f.count} value${f.count === 1 ? '' : 's'} (row${f.count === 1 ? '' : 's'} ${f.rows.join(', ')}${f.count > f.rows.length ? ', …' : ''})`,
        ),
      ].join('\n'),
    );
  },
};
