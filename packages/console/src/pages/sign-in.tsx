import { useState } from 'preact/hooks';
import { api, type ApiError, type Role } from '../api';
import { startSignIn, type SsoConfig } from '../sso';
import { ErrorBox, toApiError } from '../util';

/**
 * Paste a management token (HOOKS_API_TOKENS); it is checked once and kept
 * for this tab only. With single sign-on configured, "Sign in with <IdP>"
 * beside it sends the person to the identity provider instead.
 */
export function SignIn({ error, sso, onSignedIn }: { error: ApiError | null; sso: SsoConfig | null; onSignedIn: (token: string, role: Role) => void }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiError | null>(error);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const me = await api<{ role: Role }>('GET', '/api/whoami', undefined, token.trim());
      onSignedIn(token.trim(), me.role);
    } catch (err) {
      setFailure(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Hookyard console</h1>
      <form onSubmit={(e) => void submit(e)}>
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          required
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
        />
        <p class="hint">
          A token from HOOKS_API_TOKENS (the embedded default prints one at start). It is kept in this tab's session storage until you sign out or close the
          tab.
        </p>
        <button type="submit" disabled={busy || !token.trim()}>
          Sign in
        </button>
      </form>
      {sso && (
        <p class="sso">
          <button type="button" onClick={() => void startSignIn(sso)}>
            Sign in with {new URL(sso.issuer).host}
          </button>
        </p>
      )}
      <ErrorBox error={failure} />
    </main>
  );
}
