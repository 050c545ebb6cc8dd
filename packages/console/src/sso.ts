/**
 * Single sign-on at the IdP as a public client: authorization code + PKCE
 * (S256) with Web Crypto and fetch, no library. The access token is for the
 * API's audience (`resource`) and lives in this tab's session storage like a
 * pasted token; a refresh token renews it before it expires.
 */
import type { ConsoleSsoConfig } from '@hookyard/api';
import { session } from './api';

/** GET /console/sso.json's `sso`: where and as whom to sign in (declared in @hookyard/api). */
export type SsoConfig = ConsoleSsoConfig;

const PENDING_KEY = 'hookyard.sso.pending';
const REFRESH_KEY = 'hookyard.sso.refresh';
const EXPIRES_KEY = 'hookyard.sso.expires';

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomString = () => b64url(crypto.getRandomValues(new Uint8Array(32)));
/** The console's own address, where the IdP sends the person back (registered at the IdP as the redirect URI). */
export const redirectUri = () => `${location.origin}/console/`;

export async function ssoConfig(): Promise<SsoConfig | null> {
  try {
    const res = await fetch('/console/sso.json', { credentials: 'omit', cache: 'no-store' });
    return res.ok ? ((await res.json()) as { sso: SsoConfig | null }).sso : null;
  } catch {
    return null;
  }
}

/** Sends the person to the IdP; the verifier and state wait in this tab for the way back. */
export async function startSignIn(c: SsoConfig): Promise<void> {
  const verifier = randomString();
  const state = randomString();
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state }));
  const u = new URL(c.authorization_endpoint);
  const params = { response_type: 'code', client_id: c.client_id, redirect_uri: redirectUri(), scope: c.scope, resource: c.resource, state };
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  u.searchParams.set('code_challenge', challenge);
  u.searchParams.set('code_challenge_method', 'S256');
  location.assign(u.href);
}

/** The IdP's answer in this page's address, if any: trades the code for tokens (answers true), or throws its error. */
export async function finishSignIn(c: SsoConfig): Promise<boolean> {
  const q = new URLSearchParams(location.search);
  if (!q.has('code') && !q.has('error')) return false;
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as { verifier: string; state: string } | null;
  sessionStorage.removeItem(PENDING_KEY);
  // The address is cleaned at once: a reload must not replay the code.
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  if (q.has('error')) throw new Error(`the identity provider refused the sign-in: ${q.get('error')} ${q.get('error_description') ?? ''}`.trim());
  if (!pending || q.get('state') !== pending.state) throw new Error('the sign-in answer does not match a sign-in started in this tab; sign in again');
  await tokenRequest(c, { grant_type: 'authorization_code', code: q.get('code')!, redirect_uri: redirectUri(), code_verifier: pending.verifier });
  return true;
}

/** Renews the access token with the refresh token; false when there is none or the IdP refused (the person signs in again). */
export async function renew(c: SsoConfig): Promise<boolean> {
  const refresh = sessionStorage.getItem(REFRESH_KEY);
  if (!refresh) return false;
  try {
    await tokenRequest(c, { grant_type: 'refresh_token', refresh_token: refresh });
    return true;
  } catch {
    return false;
  }
}

/** Milliseconds until the access token should be renewed (a minute before it expires), or null for a pasted token. */
export function renewInMs(): number | null {
  const expires = Number(sessionStorage.getItem(EXPIRES_KEY) ?? NaN);
  return Number.isFinite(expires) ? Math.max(0, expires - Date.now() - 60_000) : null;
}

/** Forgets the IdP's tokens of this tab (with the session's token). */
export function forgetSso(): void {
  for (const k of [PENDING_KEY, REFRESH_KEY, EXPIRES_KEY]) sessionStorage.removeItem(k);
}

async function tokenRequest(c: SsoConfig, grant: Record<string, string>): Promise<void> {
  const res = await fetch(c.token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({ ...grant, client_id: c.client_id, resource: c.resource }),
    credentials: 'omit',
    cache: 'no-store',
  });
  const body = (await res.json().catch(() => ({}))) as {
    access_token?: string;
    refresh_token?: string;
    expires_in?: number;
    error?: string;
    error_description?: string;
  };
  if (!res.ok || !body.access_token)
    throw new Error(`the identity provider's token endpoint answered ${res.status}: ${body.error ?? ''} ${body.error_description ?? ''}`.trim());
  session.save(body.access_token);
  if (body.refresh_token) sessionStorage.setItem(REFRESH_KEY, body.refresh_token);
  if (typeof body.expires_in === 'number') sessionStorage.setItem(EXPIRES_KEY, String(Date.now() + body.expires_in * 1000));
}
