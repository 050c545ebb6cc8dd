import type { AnswerOf, whoami } from '@hookyard/api';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, atLeast, session, type Role } from './api';
import { useRoute } from './route';
import { ErrorBox, toApiError } from './util';
import { SignIn } from './pages/sign-in';
import { finishSignIn, forgetSso, renew, renewInMs, ssoConfig, type SsoConfig } from './sso';
import { Overview } from './pages/overview';
import { RunsPage } from './pages/runs';
import { IssuesPage } from './pages/issues';
import { RunStory } from './pages/run-story';
import { EventPage } from './pages/event';
import { HooksPage } from './pages/hooks';
import { TriggerLinksPage } from './pages/trigger-links';
import { ToolsPage } from './pages/tools';
import { ApprovalsPage } from './pages/approvals';
import { VerifiersPage } from './pages/verifiers';
import { UnroutedPage } from './pages/unrouted';
import { AgentsPage } from './pages/agents';
import { AuditPage } from './pages/audit';
import './style.css';

const NAV: Array<{ path: string; label: string; min: Role }> = [
  { path: '/', label: 'Overview', min: 'reader' },
  { path: '/runs', label: 'Runs', min: 'reader' },
  { path: '/issues', label: 'Issues', min: 'reader' },
  { path: '/approvals', label: 'Approvals', min: 'reader' },
  { path: '/hooks', label: 'Hooks', min: 'reader' },
  { path: '/tools', label: 'Tools', min: 'reader' },
  { path: '/unrouted', label: 'Unrouted', min: 'reader' },
  { path: '/policy', label: 'Policy', min: 'reader' },
  { path: '/verifiers', label: 'Verifiers', min: 'admin' },
  { path: '/agents', label: 'Agents', min: 'admin' },
  { path: '/audit', label: 'Audit', min: 'admin' },
];

/** GET /api/whoami: the role, and the person for a token from the IdP. */
type Me = AnswerOf<typeof whoami>;

function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(true);
  const [error, setError] = useState<ApiError | null>(null);
  const [sso, setSso] = useState<SsoConfig | null>(null);

  // The IdP's config first (it may be sending the person back with a code), then a token kept in this tab is asked about once.
  useEffect(() => {
    void (async () => {
      const config = await ssoConfig();
      setSso(config);
      try {
        if (config) await finishSignIn(config);
        if (session.token()) setMe(await api<AnswerOf<typeof whoami>>('GET', '/api/whoami'));
      } catch (err) {
        const e = toApiError(err);
        if (e.status === 401 || e.status === 403) session.clear();
        setError(e);
      }
      setChecking(false);
    })();
  }, []);

  const signOut = (why: ApiError | null = null) => {
    session.clear();
    forgetSso();
    setMe(null);
    setError(why);
    location.hash = '#/';
  };

  // A token from the IdP is renewed a minute before it expires; when it cannot be, the person signs in again.
  useEffect(() => {
    const wait = me && sso ? renewInMs() : null;
    if (wait === null) return;
    const timer = setTimeout(() => {
      void renew(sso!).then((ok) => {
        if (ok) setMe({ ...me! });
        else signOut(new ApiError(401, 'unauthorized', 'your sign-in expired and could not be renewed; sign in again'));
      });
    }, wait);
    return () => clearTimeout(timer);
  }, [me, sso]);

  if (checking) return <p class="loading">Checking the session…</p>;
  if (!me)
    return (
      <SignIn
        error={error}
        sso={sso}
        onSignedIn={(token, r) => {
          session.save(token);
          setError(null);
          setMe({ role: r });
        }}
      />
    );
  return <Shell role={me.role} person={me.person?.name ?? null} onSignOut={() => signOut()} />;
}

function Shell({ role, person, onSignOut }: { role: Role; person: string | null; onSignOut: () => void }) {
  const route = useRoute();
  const section = '/' + (route.path.split('/')[1] ?? '');
  return (
    <>
      <header class="top">
        {/* Hash routes own the fragment, so the skip link moves focus instead of navigating. */}
        <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
          Skip to content
        </button>
        <a class="brand" href="#/">
          Hookyard
        </a>
        <nav aria-label="Console sections">
          <ul>
            {NAV.filter((n) => atLeast(role, n.min)).map((n) => (
              <li key={n.path}>
                <a href={`#${n.path}`} aria-current={section === n.path ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          signed in as{' '}
          {person && (
            <>
              <strong data-testid="person">{person}</strong> with the role{' '}
            </>
          )}
          <strong data-testid="role">{role}</strong>
        </span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page role={role} path={route.path} params={route.params} />
      </main>
    </>
  );
}

function Page({ role, path, params }: { role: Role; path: string; params: URLSearchParams }) {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return <Overview role={role} />;
  if (parts[0] === 'runs' && parts.length === 1) return <RunsPage role={role} params={params} />;
  if (parts[0] === 'runs' && parts[1]) return <RunStory role={role} id={parts[1]} />;
  if (parts[0] === 'issues') return <IssuesPage role={role} params={params} />;
  if (parts[0] === 'events' && parts[1] && parts.length === 2) return <EventPage role={role} id={parts[1]} />;
  if (parts[0] === 'hooks' && parts.length === 1) return <HooksPage role={role} />;
  if (parts[0] === 'hooks' && parts[1] === 'new' && atLeast(role, 'operator')) return <LazyHookEditor name={null} />;
  if (parts[0] === 'hooks' && parts[1] && parts[2] === 'edit' && atLeast(role, 'operator')) return <LazyHookEditor name={parts[1]} />;
  if (parts[0] === 'hooks' && parts[1] && parts[2] === 'links') return <TriggerLinksPage role={role} hook={parts[1]} />;
  if (parts[0] === 'tools') return <ToolsPage role={role} />;
  if (parts[0] === 'approvals') return <ApprovalsPage role={role} params={params} />;
  if (parts[0] === 'unrouted') return <UnroutedPage role={role} />;
  if (parts[0] === 'policy') return <LazyPolicyPage role={role} />;
  if (parts[0] === 'verifiers' && atLeast(role, 'admin')) return <VerifiersPage />;
  if (parts[0] === 'agents' && atLeast(role, 'admin')) return <AgentsPage />;
  if (parts[0] === 'audit' && atLeast(role, 'admin')) return <AuditPage params={params} />;
  return <ErrorBox error={new ApiError(404, 'not_found', `no console page ${path}`)} />;
}

type HookEditorType = typeof import('./pages/hook-editor').HookEditor;

/** The hook editor (with CodeMirror) is its own chunk: the runs and overview pages do not load it. */
function LazyHookEditor({ name }: { name: string | null }) {
  const [Editor, setEditor] = useState<HookEditorType | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    import('./pages/hook-editor').then(
      (m) => setEditor(() => m.HookEditor),
      (err) => setError(toApiError(err)),
    );
  }, []);
  if (error) return <ErrorBox error={error} />;
  // Keyed by the route's hook: going from one form to another (Register to Edit, or Edit of
  // one hook to Edit of another) mounts a fresh editor that loads that hook, not the last form's values.
  return Editor ? <Editor key={name === null ? 'new' : `edit:${name}`} name={name} /> : <p class="loading">Loading the editor…</p>;
}

type PolicyPageType = typeof import('./pages/policy').PolicyPage;

/** The policy page edits rules with the jq editor (CodeMirror), so it is loaded on demand like the hook editor. */
function LazyPolicyPage({ role }: { role: Role }) {
  const [Page, setPage] = useState<PolicyPageType | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    import('./pages/policy').then(
      (m) => setPage(() => m.PolicyPage),
      (err) => setError(toApiError(err)),
    );
  }, []);
  if (error) return <ErrorBox error={error} />;
  return Page ? <Page role={role} /> : <p class="loading">Loading the policy…</p>;
}

render(<App />, document.getElementById('app')!);
