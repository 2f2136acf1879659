/** `featureType` values (rest-interface part 2). */
export const FEATURE_TYPES = ['comment', 'reaction', 'recorder', 'crdt', 'custom'] as const;
export type FeatureType = (typeof FEATURE_TYPES)[number];
