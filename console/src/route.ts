import { useEffect, useState } from 'preact/hooks';

/**
 * Where the console is: `#/<screen>/<arg>?w=<workspace>&k=<key>`. Kept in the address so a
 * reload, a bookmark and the browser's back button work; it holds ids only, never a credential.
 */
export interface Route {
  screen: string;
  arg: string;
  workspaceId: string;
  apiKey: string;
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const [screen = 'overview', ...rest] = path.split('/').map(decodeURIComponent);
  const params = new URLSearchParams(query);
  return { screen: screen || 'overview', arg: rest.join('/'), workspaceId: params.get('w') ?? '', apiKey: params.get('k') ?? '' };
}

export function href(route: Partial<Route> & { screen: string }, current: Route): string {
  const next = { ...current, arg: '', ...route };
  const params = new URLSearchParams();
  if (next.workspaceId) params.set('w', next.workspaceId);
  if (next.apiKey) params.set('k', next.apiKey);
  return `#/${encodeURIComponent(next.screen)}${next.arg ? `/${encodeURIComponent(next.arg)}` : ''}?${params}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
