/** The plans a workspace may be on: `free` (every new workspace) or `paid` (production keys need it). */
export const WORKSPACE_PLANS = ['free', 'paid'] as const;
export type WorkspacePlan = (typeof WORKSPACE_PLANS)[number];

/** The types of API key a workspace may hold. */
export const API_KEY_TYPES = ['testing', 'production'] as const;
export type ApiKeyType = (typeof API_KEY_TYPES)[number];
