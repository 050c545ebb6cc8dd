import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import { unavailable } from '@hookyard/core';

/** Least time between two JWKS reads an unknown `kid` causes (a flood of made-up kids costs the IdP one read per this). */
export const JWKS_COOLDOWN_MS = 30_000;
/** How long a read JWKS is used before it is read again, rotation or not. */
export const JWKS_MAX_AGE_MS = 10 * 60_000;
/** Longest wait for an issuer's metadata or JWKS. */
export const IDP_TIMEOUT_MS = 5_000;
/** After a failed metadata read, the next request waits this long before the issuer is asked again. */
export const METADATA_RETRY_MS = 5_000;

/** How IssuerKeys reaches the IdPs; every field has the default above. */
export interface IssuerKeysOptions {
  fetch?: typeof fetch;
  cooldownMs?: number;
  maxAgeMs?: number;
  timeoutMs?: number;
  now?: () => number;
}

/**
 * Where an issuer publishes its metadata, in the order asked: RFC 8414's
 * well-known (inserted before the issuer's path), then OpenID Connect
 * discovery's (appended to it), as the MCP authorization spec lists them.
 */
export function metadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, '');
  return [`${u.origin}/.well-known/oauth-authorization-server${path}`, `${u.origin}${path}/.well-known/openid-configuration`];
}

interface Entry {
  keys?: JWTVerifyGetKey;
  pending?: Promise<JWTVerifyGetKey>;
  failed?: { at: number; error: Error };
}

/**
 * The signing keys of each configured issuer: its `jwks_uri` found through
 * its metadata (whose `issuer` must be the configured one exactly), then
 * jose's remote key set, which caches the keys and reads them again when a
 * token names a `kid` it does not hold (at most once per cooldown): a key
 * rotation is followed without a restart.
 */
export class IssuerKeys {
  private readonly entries = new Map<string, Entry>();
  private readonly fetch: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly options: IssuerKeysOptions = {}) {
    this.fetch = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
  }

  /** The key resolver of `issuer` (one of the configured ones); `unavailable` while its metadata cannot be read. */
  async keysOf(issuer: string): Promise<JWTVerifyGetKey> {
    let e = this.entries.get(issuer);
    if (!e) this.entries.set(issuer, (e = {}));
    if (e.keys) return e.keys;
    if (e.failed && this.now() - e.failed.at < METADATA_RETRY_MS) throw e.failed.error;
    e.pending ??= this.discover(issuer).then(
      (keys) => {
        e.keys = keys;
        e.pending = undefined;
        return keys;
      },
      (err: Error) => {
        e.failed = { at: this.now(), error: err };
        e.pending = undefined;
        throw err;
      },
    );
    return e.pending;
  }

  private async discover(issuer: string): Promise<JWTVerifyGetKey> {
    const problems: string[] = [];
    for (const url of metadataUrls(issuer)) {
      let meta: { issuer?: unknown; jwks_uri?: unknown };
      try {
        const res = await this.fetch(url, { signal: AbortSignal.timeout(this.options.timeoutMs ?? IDP_TIMEOUT_MS), redirect: 'error' });
        if (!res.ok) {
          problems.push(`${url} answered ${res.status}`);
          continue;
        }
        meta = (await res.json()) as typeof meta;
      } catch (err) {
        problems.push(`${url}: ${String((err as Error).message ?? err)}`);
        continue;
      }
      // RFC 8414 §3.3: metadata naming another issuer is not this issuer's.
      if (meta.issuer !== issuer)
        throw unavailable(
          `the metadata at ${url} names issuer ${JSON.stringify(meta.issuer)}, not ${issuer}; HOOKS_OIDC_ISSUER must be the issuer exactly as the IdP names it`,
        );
      if (typeof meta.jwks_uri !== 'string') throw unavailable(`the metadata at ${url} has no jwks_uri: the issuer's signing keys cannot be found`);
      return createRemoteJWKSet(new URL(meta.jwks_uri), {
        cooldownDuration: this.options.cooldownMs ?? JWKS_COOLDOWN_MS,
        cacheMaxAge: this.options.maxAgeMs ?? JWKS_MAX_AGE_MS,
        timeoutDuration: this.options.timeoutMs ?? IDP_TIMEOUT_MS,
        [customFetch]: (u: string, init: RequestInit) => this.fetch(u, init),
      });
    }
    throw unavailable(`the metadata of issuer ${issuer} could not be read (${problems.join('; ')}); access tokens from it cannot be checked until it can`);
  }
}
