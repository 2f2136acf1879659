/** A workspace as the console sees it (its auth token is never sent to the console). */
export interface Workspace {
  id: string;
  name: string;
  owner: { email: string; name: string };
  apiKeyList: Record<string, { id: string; apiKeyName: string; type: string }>;
}

/** The signed-in owner, as `console/session/get` answers. */
export interface Session {
  email: string;
  expiresAt: number;
  csrfToken: string;
  workspaces: Workspace[];
}

/** What every screen gets: the key or workspace it acts on, and how to link elsewhere. */
export interface ScreenProps {
  workspace: Workspace;
  apiKey: string;
  arg: string;
  link: (screen: string, arg?: string) => string;
  refreshSession: () => Promise<void>;
}
