/**
 * Trigger links: a URL that fires one hook, for senders that cannot sign a
 * body (a form, a no-code tool, a cron `curl`). The token is shown once when
 * the link is made and kept only as its SHA-256; the record below is what is
 * kept and listed (never the token).
 */

/** The path a trigger link's token follows: `POST /trigger/{token}`. */
export const TRIGGER_LINK_PATH = '/trigger/';

/** A link id: `tl_` and 20 base32 characters (lower case). */
export const TRIGGER_LINK_ID_PATTERN = /^tl_[a-z2-7]{20}$/;

/** A token as made: 32 random bytes, base64url (43 characters): 256 bits. */
export const TRIGGER_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A trigger link as kept and listed. Times are ISO strings. */
export interface TriggerLink {
  id: string;
  /** The hook the link fires (only this hook, never the others on its topic). */
  hook: string;
  label: string;
  created_at: string;
  /** Who made it: `<role>:<token id>` of the operator's API token. */
  created_by: string;
  /** Past this time the link is refused; null: never expires. */
  expires_at: string | null;
  /** How many times it fired. */
  uses: number;
  /** When a request last took a use of it; null: never fired. */
  last_used_at: string | null;
  /** At this many uses the link is refused; null: no limit. */
  max_uses: number | null;
  revoked: boolean;
}

/**
 * Why a use was refused (logged, never told to the caller: a wrong, revoked,
 * expired or used-up token all get the same answer).
 */
export type TriggerRefusal = 'unknown' | 'revoked' | 'expired' | 'used_up';

/** What a link use answers: the link (its use counted) or why not. */
export type TriggerLinkUse = { ok: true; link: TriggerLink } | { ok: false; reason: TriggerRefusal };

/** Whether `link` may fire at `now` (epoch ms), as both stores decide it. */
export function triggerRefusal(link: TriggerLink, now: number): TriggerRefusal | null {
  if (link.revoked) return 'revoked';
  if (link.expires_at !== null && Date.parse(link.expires_at) <= now) return 'expired';
  if (link.max_uses !== null && link.uses >= link.max_uses) return 'used_up';
  return null;
}
