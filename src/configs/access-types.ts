import type { AccessType } from './key-configs.js';

/** accessType values of rest-interface part 2. */
export const ACCESS_TYPES: readonly AccessType[] = ['public', 'organizationPrivate', 'restricted'];
