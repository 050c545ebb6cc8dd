import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a signed link answers. */
export type LinkVerdict = 'approve' | 'deny';

/** Where the signed-link pages are served (no token: the signature is the credential). */
export const APPROVAL_LINK_PATH = '/approvals';

/** The tool extras a hook on `hooks_approval_requested` gets the links in (made at call time, never kept in a run). */
export const TOOL_EXTRA_APPROVE_URL = 'tai42/approve_url';
export const TOOL_EXTRA_DENY_URL = 'tai42/deny_url';
export const TOOL_EXTRA_LINKS_EXPIRE_AT = 'tai42/links_expire_at';

/** The two signed links of an approval, and when they stop working. */
export interface ApprovalLinks {
  approve_url: string;
  deny_url: string;
  /** ISO time the links stop working: min(made + HOOKS_APPROVAL_LINK_TTL_SECONDS, the approval's expires_at). */
  expires_at: string;
}

/** A link's `exp` as written in it: epoch seconds, digits only. */
const EXP = /^[0-9]{1,12}$/;

function mac(key: Buffer, id: string, verdict: LinkVerdict, exp: string): Buffer {
  // Bound to the interaction, the verdict and the link's own expiry: a deny link can never approve, nor a link outlive its `exp`.
  return createHmac('sha256', key).update(`hookyard approval link v2\n${id}\n${verdict}\n${exp}`).digest();
}

/** The signature of one link (base64url HMAC-SHA256) expiring at `exp` (epoch seconds). */
export function signApprovalLink(key: Buffer, id: string, verdict: LinkVerdict, exp: number): string {
  return mac(key, id, verdict, String(exp)).toString('base64url');
}

/**
 * Constant-time check of a presented link: its `exp` and signature. Any
 * malformed one is simply false; a valid one answers when it stops working
 * (epoch ms), which the caller compares with its clock.
 */
export function approvalLinkValid(key: Buffer, id: string, verdict: LinkVerdict, exp: unknown, presented: unknown): { expiresAtMs: number } | false {
  if (typeof exp !== 'string' || !EXP.test(exp) || typeof presented !== 'string' || presented.length > 128) return false;
  const want = mac(key, id, verdict, String(Number(exp)));
  const got = Buffer.from(presented, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return false;
  return { expiresAtMs: Number(exp) * 1000 };
}

/**
 * The two links of an approval under `publicUrl` (HOOKS_PUBLIC_URL), made at
 * `now`: each works for `ttlMs` (HOOKS_APPROVAL_LINK_TTL_SECONDS) and never
 * past the approval's own `expires_at`.
 */
export function approvalLinks(publicUrl: string, key: Buffer, i: { id: string; expires_at: string }, now: number, ttlMs: number): ApprovalLinks {
  const base = publicUrl.replace(/\/+$/, '');
  // Whole seconds, rounded down: a link never outlives the approval.
  const exp = Math.floor(Math.min(now + ttlMs, Date.parse(i.expires_at)) / 1000);
  const url = (v: LinkVerdict) => `${base}${APPROVAL_LINK_PATH}/${i.id}/${v}?exp=${exp}&sig=${signApprovalLink(key, i.id, v, exp)}`;
  return { approve_url: url('approve'), deny_url: url('deny'), expires_at: new Date(exp * 1000).toISOString() };
}
