import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a signed link answers. */
export type LinkVerdict = 'approve' | 'deny';

/** Where the signed-link pages are served (no token: the signature is the credential). */
export const APPROVAL_LINK_PATH = '/approvals';

function mac(key: Buffer, id: string, verdict: LinkVerdict, expiresAt: string): Buffer {
  // Bound to the interaction, the verdict and its expiry: a deny link can never approve, nor a link outlive its approval.
  return createHmac('sha256', key).update(`hookyard approval link v1\n${id}\n${verdict}\n${expiresAt}`).digest();
}

/** The signature of one link (base64url HMAC-SHA256). */
export function signApprovalLink(key: Buffer, id: string, verdict: LinkVerdict, expiresAt: string): string {
  return mac(key, id, verdict, expiresAt).toString('base64url');
}

/** Constant-time check of a presented signature; any malformed one is simply false. */
export function approvalLinkValid(key: Buffer, id: string, verdict: LinkVerdict, expiresAt: string, presented: unknown): boolean {
  if (typeof presented !== 'string' || presented.length > 128) return false;
  const want = mac(key, id, verdict, expiresAt);
  const got = Buffer.from(presented, 'base64url');
  return got.length === want.length && timingSafeEqual(got, want);
}

/** The two links of an approval under `publicUrl` (HOOKS_PUBLIC_URL). */
export function approvalLinks(publicUrl: string, key: Buffer, i: { id: string; expires_at: string }): { approve_url: string; deny_url: string } {
  const base = publicUrl.replace(/\/+$/, '');
  const url = (v: LinkVerdict) => `${base}${APPROVAL_LINK_PATH}/${i.id}/${v}?sig=${signApprovalLink(key, i.id, v, i.expires_at)}`;
  return { approve_url: url('approve'), deny_url: url('deny') };
}
