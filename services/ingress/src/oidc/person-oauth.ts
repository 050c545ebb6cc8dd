import type { Role, Settings } from '@hookyard/core';
import { TokenRefused, type AccessTokenVerifier } from './access-token';
import type { BearerProblem } from './agent-oauth';

const RANK: Record<Role, number> = { reader: 0, operator: 1, admin: 2 };
const ROLES = Object.keys(RANK) as Role[];

/** The management API as a resource for people (set when HOOKS_OIDC_API_AUDIENCE is). */
export interface PersonOAuth {
  audience: string;
  rolesClaim: string;
  roleMap: Readonly<Record<string, Role>>;
  verify: AccessTokenVerifier;
}

/** A person the IdP vouched for: what the records name instead of a token label. */
export interface Person {
  issuer: string;
  subject: string;
  /** `preferred_username`, else `email`, else the subject. */
  name: string;
  role: Role;
}

/** The people side from the settings, sharing the agent door's verifier (one key cache per issuer); null without an API audience. */
export function personOAuthOf(
  settings: Pick<Settings, 'oidcApiAudience' | 'oidcRolesClaim' | 'oidcRoleMap'>,
  verify: AccessTokenVerifier | undefined,
): PersonOAuth | null {
  // loadSettings refuses an API audience without an issuer, so a verifier exists.
  if (settings.oidcApiAudience === undefined || !verify) return null;
  return { audience: settings.oidcApiAudience, rolesClaim: settings.oidcRolesClaim, roleMap: settings.oidcRoleMap, verify };
}

/** `person:<name> (sub <subject>)`: readable, and the subject tells two people of one name apart. */
export function personLabel(p: Person): string {
  return p.name === p.subject ? `person:${p.subject}` : `person:${p.name} (sub ${p.subject})`;
}

/**
 * The person an access token for the API is, or why not: verified for the
 * API's audience (a token for the agent door or any other resource is 401),
 * the role the strongest value of the roles claim names (itself a role, or
 * mapped by HOOKS_OIDC_ROLE_MAP); no role found is 403 saying what was seen.
 */
export async function personOfAccessToken(o: PersonOAuth, token: string): Promise<{ person: Person } | BearerProblem> {
  let claims: Record<string, unknown>;
  let issuer: string;
  let subject: string | null;
  try {
    ({ claims, issuer, subject } = await o.verify(token, o.audience));
  } catch (err) {
    if (err instanceof TokenRefused) return { status: 401, message: err.message, error: 'invalid_token' };
    throw err;
  }
  if (subject === null) return { status: 401, message: 'the access token names no person (it has no sub claim)', error: 'invalid_token' };
  const raw = claims[o.rolesClaim];
  const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
  let role: Role | undefined;
  for (const v of values) {
    const r = Object.hasOwn(o.roleMap, v) ? o.roleMap[v] : (ROLES as string[]).includes(v) ? (v as Role) : undefined;
    if (r && (role === undefined || RANK[r] > RANK[role])) role = r;
  }
  if (!role) {
    const mapped = Object.keys(o.roleMap).length ? ` or one HOOKS_OIDC_ROLE_MAP maps (${Object.keys(o.roleMap).join(', ')})` : '';
    return {
      status: 403,
      message: `the access token of ${subject} carries no Hookyard role: its ${JSON.stringify(o.rolesClaim)} claim holds ${JSON.stringify(raw ?? null)}; the IdP must put ${ROLES.join(', ')}${mapped} there`,
    };
  }
  const readable = [claims.preferred_username, claims.email].find((v): v is string => typeof v === 'string' && v !== '');
  return { person: { issuer, subject, name: readable ?? subject, role } };
}
