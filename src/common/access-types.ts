/** accessType of a folder or document (rest-interface part 2), and of a key's default for those that set none. */
export type AccessType = 'public' | 'organizationPrivate' | 'restricted';

/** accessType values of rest-interface part 2. */
export const ACCESS_TYPES: readonly AccessType[] = ['public', 'organizationPrivate', 'restricted'];
