import type { ConsoleSsoConfig } from '@hookyard/api';
import type { Settings } from '@hookyard/core';
import { IDP_TIMEOUT_MS, METADATA_RETRY_MS, metadataUrls } from './issuer-keys';

/** The console's single sign-on (HOOKS_OIDC_CONSOLE_CLIENT_ID): its config, read once from the issuer's metadata. */
export interface ConsoleSso {
  /** The config, or null while the issuer's metadata cannot be read (the console then offers the token form only). */
  config(): Promise<ConsoleSsoConfig | null>;
}

/**
 * Set when HOOKS_OIDC_CONSOLE_CLIENT_ID is (loadSettings makes sure the API
 * audience and an issuer are set too). The console signs in at the first
 * issuer of HOOKS_OIDC_ISSUER. Its endpoints come from the issuer's metadata,
 * read by the server, so the page's CSP can allow exactly the token endpoint.
 */
export function consoleSsoOf(
  settings: Pick<Settings, 'oidcConsoleClientId' | 'oidcApiAudience' | 'oidcIssuers' | 'oidcConsoleScope'>,
  fetchFn: typeof fetch = fetch,
  nowMs: () => number = Date.now,
): ConsoleSso | null {
  const clientId = settings.oidcConsoleClientId;
  const resource = settings.oidcApiAudience;
  const issuer = settings.oidcIssuers[0];
  if (clientId === undefined || resource === undefined || issuer === undefined) return null;
  let found: ConsoleSsoConfig | null = null;
  let failedAt = -Infinity;
  let pending: Promise<ConsoleSsoConfig | null> | null = null;
  const discover = async (): Promise<ConsoleSsoConfig | null> => {
    for (const url of metadataUrls(issuer)) {
      try {
        const res = await fetchFn(url, { signal: AbortSignal.timeout(IDP_TIMEOUT_MS), redirect: 'error' });
        if (!res.ok) continue;
        const meta = (await res.json()) as Record<string, unknown>;
        if (meta.issuer !== issuer || typeof meta.authorization_endpoint !== 'string' || typeof meta.token_endpoint !== 'string') continue;
        return {
          issuer,
          client_id: clientId,
          resource,
          authorization_endpoint: meta.authorization_endpoint,
          token_endpoint: meta.token_endpoint,
          // HOOKS_OIDC_CONSOLE_SCOPE: offline_access asks for a refresh token, so the console renews without sending the person back.
          scope: settings.oidcConsoleScope,
        };
      } catch {
        // The next metadata URL, or none: retried after METADATA_RETRY_MS.
      }
    }
    return null;
  };
  return {
    async config() {
      if (found) return found;
      if (nowMs() - failedAt < METADATA_RETRY_MS) return null;
      pending ??= discover().then((c) => {
        pending = null;
        if (c) found = c;
        else failedAt = nowMs();
        return c;
      });
      return pending;
    },
  };
}
