import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, setCsrfToken, whenSignedOut } from './api';
import { Failure, Loading } from './components/ui';
import { href, useRoute } from './route';
import { SCREENS } from './screens/index';
import { SignIn } from './screens/sign-in';
import type { Session } from './session';
import { viewerZone, when } from './time';
import './styles.css';

function App() {
  // undefined: still asking the service; null: signed out.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [signInError, setSignInError] = useState<unknown>(undefined);

  const adopt = (next: Session) => {
    setCsrfToken(next.csrfToken);
    setSession(next);
  };
  const refreshSession = () => call<Session>('/v2/console/session/get').then((answer) => adopt(answer.data));

  useEffect(() => {
    whenSignedOut(() => {
      setCsrfToken('');
      setSession(null);
    });
    const token = new URLSearchParams(location.search).get('token');
    if (token) {
      // The login link's token leaves the address bar (and history) before anything else runs.
      history.replaceState(null, '', location.pathname + location.hash);
      call<Session>('/v2/console/session/create', { token }).then(
        (answer) => adopt(answer.data),
        (error: unknown) => {
          setSignInError(error);
          setSession(null);
        },
      );
    } else {
      refreshSession().catch(() => setSession(null));
    }
  }, []);

  if (session === undefined) return <Loading what="your session" />;
  if (session === null) return <SignIn error={signInError} />;
  return <Shell session={session} refreshSession={refreshSession} onSignedOut={() => setSession(null)} />;
}

function Shell({ session, refreshSession, onSignedOut }: { session: Session; refreshSession: () => Promise<void>; onSignedOut: () => void }) {
  const route = useRoute();
  const workspace = session.workspaces.find((w) => w.id === route.workspaceId) ?? session.workspaces[0];
  const keys = workspace ? Object.values(workspace.apiKeyList) : [];
  const apiKey = keys.find((k) => k.id === route.apiKey)?.id ?? keys[0]?.id ?? '';
  const screen = SCREENS.find((s) => s.id === route.screen) ?? SCREENS[0]!;
  const [signOutError, setSignOutError] = useState<unknown>(undefined);

  useEffect(() => {
    // An address without (or with a stale) workspace or key names the first ones.
    if (workspace && (route.workspaceId !== workspace.id || route.apiKey !== apiKey)) {
      history.replaceState(null, '', href({ screen: route.screen, arg: route.arg, workspaceId: workspace.id, apiKey }, route));
      dispatchEvent(new HashChangeEvent('hashchange'));
    }
  }, [workspace?.id, apiKey, route.workspaceId, route.apiKey]);

  useEffect(() => {
    document.title = `${screen.title} · Console`;
  }, [screen.title]);

  const signOut = () =>
    call('/v2/console/session/delete').then(() => {
      setCsrfToken('');
      onSignedOut();
    }, setSignOutError);

  if (!workspace) return <p class="empty">This address owns no workspace.</p>;
  const link = (to: string, arg = '') => href({ screen: to, arg }, { ...route, workspaceId: workspace.id, apiKey });
  const Screen = screen.component;
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <strong class="brand">Console</strong>
        <div class="picker">
          <label for="pick-workspace">Workspace</label>
          <select
            id="pick-workspace"
            value={workspace.id}
            onChange={(event) => (location.hash = href({ screen: screen.id, workspaceId: event.currentTarget.value, apiKey: '' }, route))}
          >
            {session.workspaces.map((w) => (
              <option value={w.id}>{w.name}</option>
            ))}
          </select>
        </div>
        <div class="picker">
          <label for="pick-key">API key</label>
          <select
            id="pick-key"
            value={apiKey}
            onChange={(event) => (location.hash = href({ screen: screen.id, workspaceId: workspace.id, apiKey: event.currentTarget.value }, route))}
          >
            {keys.map((k) => (
              <option value={k.id}>
                {k.apiKeyName} ({k.type})
              </option>
            ))}
          </select>
        </div>
        <span class="who">
          {session.email}
          <button type="button" class="link" onClick={signOut}>
            Sign out
          </button>
        </span>
        <Failure error={signOutError} />
      </header>
      <nav class="side" aria-label="Screens">
        <ul>
          {SCREENS.map((s) => (
            <li>
              <a href={link(s.id)} aria-current={s.id === screen.id ? 'page' : undefined}>
                {s.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <h1>{screen.title}</h1>
        <Screen
          key={`${screen.id}:${workspace.id}:${apiKey}:${route.arg}`}
          workspace={workspace}
          apiKey={apiKey}
          arg={route.arg}
          link={link}
          refreshSession={refreshSession}
        />
      </main>
      <footer class="foot">
        Times in {viewerZone}. Signed in until {when(session.expiresAt)}.
      </footer>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
