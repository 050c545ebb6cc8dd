import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { HookyardError, unavailable } from '@hookyard/core';
import { IssuerKeys, type IssuerKeysOptions } from './issuer-keys';

/** Signature algorithms accepted: asymmetric only (never `none`, never an HMAC keyed with something public). */
export const ACCESS_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Leeway on `exp` and `nbf`, for clocks a little apart. */
export const CLOCK_LEEWAY_SECONDS = 30;

/** What a verified access token says. */
export interface VerifiedToken {
  issuer: string;
  /** `sub`; null when the token has none. */
  subject: string | null;
  /** `client_id` (RFC 9068), else `azp`; null when it has neither. */
  client_id: string | null;
  /** `scope` (space-separated) or `scp` (an array), as a list. */
  scopes: string[];
  claims: JWTPayload;
}

/** An access token refused: the sentence says why, for the 401's error_description. */
export class TokenRefused extends Error {}

/** Looks like a JWT (three base64url parts): told apart from an opaque or `hya_` token by shape alone. */
export function isJwtShaped(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

export interface AccessTokenVerifierOptions extends IssuerKeysOptions {
  /** The configured issuers (HOOKS_OIDC_ISSUER). */
  issuers: readonly string[];
  /** Seconds since the epoch, for `exp` and `nbf`; default: the system clock. */
  nowSeconds?: () => number;
}

/**
 * Verifies an access token for one audience: the signature (an allowlisted
 * asymmetric algorithm, a key of the issuer's JWKS), `iss` exactly one of the
 * configured issuers, `aud` containing `audience` (RFC 8707: a token minted
 * for another resource is refused, never passed on), `exp` and `nbf` within
 * CLOCK_LEEWAY_SECONDS. Framework-neutral, one per audience: the agent door
 * uses it, and the management API can with its own.
 */
export type AccessTokenVerifier = (token: string, audience: string) => Promise<VerifiedToken>;

export function createAccessTokenVerifier(options: AccessTokenVerifierOptions, keys = new IssuerKeys(options)): AccessTokenVerifier {
  const issuers = new Set(options.issuers);
  return async (token, audience) => {
    let alg: unknown;
    let iss: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
      iss = decodeJwt(token).iss;
    } catch {
      throw new TokenRefused('the access token is not a well-formed JWT');
    }
    if (typeof alg !== 'string' || !ACCESS_TOKEN_ALGORITHMS.includes(alg)) {
      throw new TokenRefused(`the access token is signed with alg ${JSON.stringify(alg)}; only ${ACCESS_TOKEN_ALGORITHMS.join(', ')} are accepted`);
    }
    if (typeof iss !== 'string' || !issuers.has(iss)) {
      throw new TokenRefused(`the access token's issuer ${JSON.stringify(iss)} is not one this deployment trusts (HOOKS_OIDC_ISSUER)`);
    }
    const getKey = await keys.keysOf(iss);
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, getKey, {
        issuer: iss,
        audience,
        algorithms: ACCESS_TOKEN_ALGORITHMS,
        clockTolerance: CLOCK_LEEWAY_SECONDS,
        ...(options.nowSeconds ? { currentDate: new Date(options.nowSeconds() * 1000) } : {}),
      }));
    } catch (err) {
      if (err instanceof HookyardError) throw err;
      const code = (err as { code?: unknown }).code;
      // The IdP's keys could not be read: not the token's fault, so not a 401 that sends the client to sign in again.
      if (code === undefined || code === 'ERR_JWKS_TIMEOUT' || code === 'ERR_JWKS_INVALID') {
        throw unavailable(`the signing keys of ${iss} could not be read (${String((err as Error).message ?? err)}); try again shortly`);
      }
      throw new TokenRefused(refusalOf(err, iss, audience));
    }
    const clientId = typeof claims.client_id === 'string' ? claims.client_id : typeof claims.azp === 'string' ? claims.azp : null;
    return { issuer: iss, subject: typeof claims.sub === 'string' ? claims.sub : null, client_id: clientId, scopes: scopesOf(claims), claims };
  };
}

function scopesOf(claims: JWTPayload): string[] {
  if (typeof claims.scope === 'string') return claims.scope.split(' ').filter(Boolean);
  if (Array.isArray(claims.scp)) return claims.scp.filter((s): s is string => typeof s === 'string');
  return [];
}

/** One sentence per way jose refuses, by its error code. */
function refusalOf(err: unknown, issuer: string, audience: string): string {
  const e = err as { code?: string; claim?: string; payload?: JWTPayload; message?: string };
  switch (e.code) {
    case 'ERR_JWT_EXPIRED':
      return `the access token expired at ${isoOf(e.payload?.exp)} (leeway ${CLOCK_LEEWAY_SECONDS} s); get a new one`;
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (e.claim === 'aud') {
        return `the access token is for ${JSON.stringify(e.payload?.aud)}, not this resource (${audience}); ask the IdP for a token with resource=${audience}`;
      }
      if (e.claim === 'nbf') return `the access token is not valid before ${isoOf(e.payload?.nbf)} (leeway ${CLOCK_LEEWAY_SECONDS} s)`;
      return `the access token's ${e.claim ?? 'claims'} check failed: ${e.message ?? ''}`;
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return `the access token is signed with a key that ${issuer}'s JWKS does not hold`;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return `the access token's signature does not verify with ${issuer}'s keys`;
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return `the access token's algorithm is not accepted (only ${ACCESS_TOKEN_ALGORITHMS.join(', ')})`;
    default:
      return `the access token could not be verified: ${e.message ?? String(err)}`;
  }
}

const isoOf = (sec: unknown) => (typeof sec === 'number' ? new Date(sec * 1000).toISOString() : '?');
