import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a signed link answers. */
export type LinkVerdict = 'approve' | 'deny';

/** Where the signed-link pages are served (no token: the signature is the credential). */
export const APPROVAL_LINK_PATH = '/approvals';

/** The tool extras a hook on `hooks_approval_requested` gets the links in (made at call time, never kept in a run). */
export const TOOL_EXTRA_APPROVE_URL = 'tai42/approve_url';
export const TOOL_EXTRA_DENY_URL = 'tai42/deny_url';
export const TOOL_EXTRA_LINKS_EXPIRE_AT = 'tai42/links_expire_at';
/** The log line of links left unsigned (the ingress's for operators, the executor's for a call): one wording to search for. */
export const LINK_KEY_UNREADABLE = 'approval links not signed: HOOKS_APPROVAL_LINK_SECRET could not be read';

/** The two signed links of an approval, and when they stop working. */
export interface ApprovalLinks {
  approve_url: string;
  deny_url: string;
  /** ISO time the links stop working: min(made + HOOKS_APPROVAL_LINK_TTL_SECONDS, the approval's expires_at). */
  expires_at: string;
}

/**
 * Whom a link was issued to, written in it as `by` and signed with it: the
 * issuing API token's label (`operator:e81d4306`, `admin:…`) or `hook:<name>`
 * (the hook on `hooks_approval_requested` the platform handed it to). Plain
 * URL-safe text, so a link shows it as it is and it never holds a newline.
 */
export const LINK_ISSUER_PATTERN = /^[a-z]{1,16}:[a-z0-9][a-z0-9_-]{0,127}$/;

/** A link's `exp` as written in it: epoch seconds, digits only. */
const EXP = /^[0-9]{1,12}$/;

function mac(key: Buffer, id: string, verdict: LinkVerdict, exp: string, issuer: string): Buffer {
  // Bound to the interaction, the verdict, the link's own expiry and whom it was issued to:
  // a deny link can never approve, a link never outlives its `exp`, and its issuer cannot be changed.
  return createHmac('sha256', key).update(`hookyard approval link v3\n${id}\n${verdict}\n${exp}\n${issuer}`).digest();
}

/** The signature links made before issuers were signed (v2: id, verdict, expiry), only to say why they are refused. */
function macV2(key: Buffer, id: string, verdict: LinkVerdict, exp: string): Buffer {
  return createHmac('sha256', key).update(`hookyard approval link v2\n${id}\n${verdict}\n${exp}`).digest();
}

/** The signature of one link (base64url HMAC-SHA256) expiring at `exp` (epoch seconds), issued to `issuer`. */
export function signApprovalLink(key: Buffer, id: string, verdict: LinkVerdict, exp: number, issuer: string): string {
  if (!LINK_ISSUER_PATTERN.test(issuer)) throw new Error(`a link issuer must match ${String(LINK_ISSUER_PATTERN)}, got ${JSON.stringify(issuer)}`);
  return mac(key, id, verdict, String(exp), issuer).toString('base64url');
}

function sameMac(want: Buffer, presented: string): boolean {
  const got = Buffer.from(presented, 'base64url');
  return got.length === want.length && timingSafeEqual(got, want);
}

/** What a presented link's query says about it: valid (when it stops working, whom it was issued to), made before issuers were signed, or not valid. */
export type LinkCheck = { expiresAtMs: number; issuer: string } | 'unsigned-issuer' | false;

/**
 * Constant-time check of a presented link: its `exp`, `by` (issuer) and
 * signature. Any malformed or tampered one is false; a valid one answers when
 * it stops working (epoch ms), which the caller compares with its clock, and
 * its issuer. A link with no `by` whose signature is a valid pre-issuer (v2)
 * one is `'unsigned-issuer'`: refused, but the holder can be told why.
 */
export function approvalLinkValid(key: Buffer, id: string, verdict: LinkVerdict, query: { exp?: unknown; by?: unknown; sig?: unknown }): LinkCheck {
  const { exp, by, sig } = query;
  if (typeof exp !== 'string' || !EXP.test(exp) || typeof sig !== 'string' || sig.length > 128) return false;
  const seconds = String(Number(exp));
  if (by === undefined) return sameMac(macV2(key, id, verdict, seconds), sig) ? 'unsigned-issuer' : false;
  if (typeof by !== 'string' || !LINK_ISSUER_PATTERN.test(by)) return false;
  if (!sameMac(mac(key, id, verdict, seconds, by), sig)) return false;
  return { expiresAtMs: Number(exp) * 1000, issuer: by };
}

/**
 * The two links of an approval under `publicUrl` (HOOKS_PUBLIC_URL), made at
 * `now` and issued to `issuer` (LINK_ISSUER_PATTERN): each works for `ttlMs`
 * (HOOKS_APPROVAL_LINK_TTL_SECONDS) and never past the approval's own `expires_at`.
 */
export function approvalLinks(
  publicUrl: string,
  key: Buffer,
  i: { id: string; expires_at: string },
  now: number,
  ttlMs: number,
  issuer: string,
): ApprovalLinks {
  const base = publicUrl.replace(/\/+$/, '');
  // Whole seconds, rounded down: a link never outlives the approval.
  const exp = Math.floor(Math.min(now + ttlMs, Date.parse(i.expires_at)) / 1000);
  const url = (v: LinkVerdict) => `${base}${APPROVAL_LINK_PATH}/${i.id}/${v}?exp=${exp}&by=${issuer}&sig=${signApprovalLink(key, i.id, v, exp, issuer)}`;
  return { approve_url: url('approve'), deny_url: url('deny'), expires_at: new Date(exp * 1000).toISOString() };
}
