import { AGENT_TOKEN_PREFIX, TRIGGER_LINK_PATH } from '@hookyard/core';

/** What a redacted value reads as in the trail. */
export const REDACTED = '[redacted]';

/** Keys whose string or structured values are secret-shaped wherever they appear (a number under `max_tokens` is not). */
const SECRET_KEY = /token|secret|passw|authorization|api[-_]?key|signature|^sig$|cookie|private[-_]?key|credential|session/i;

/** Values that are secrets whatever key they sit under. */
const SECRET_VALUE: readonly RegExp[] = [
  new RegExp(`${AGENT_TOKEN_PREFIX}[A-Za-z0-9_-]{8,}`, 'g'),
  /\bBearer\s+\S+/gi,
  /\bBasic\s+[A-Za-z0-9+/=]{8,}/g,
  /\bwhsec_[A-Za-z0-9+/=_-]+/g,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  // A trigger link's path or URL carries its token.
  new RegExp(`${TRIGGER_LINK_PATH.replace(/\//g, '\\/')}[A-Za-z0-9_-]{16,}`, 'g'),
  // A signed approval link's signature and any token in a query string.
  /([?&](?:sig|token|access_token|api_key|key)=)[^&#\s"]+/gi,
  // A password in a URL's user info.
  /(\b[a-z][a-z0-9+.-]*:\/\/[^/:@\s]*:)[^@/\s]+@/gi,
];

const MAX_DEPTH = 24;

/**
 * A copy of `value` fit for the audit trail: values under secret-shaped keys
 * replaced, secret-shaped strings (agent and API tokens, bearer credentials,
 * trigger link paths, signed link signatures, URL passwords) masked, and any
 * of `known` (the configured API tokens) masked wherever it appears. Keys that
 * would reach an object's prototype are dropped.
 */
export function redactSecrets(value: unknown, known: readonly string[] = [], depth = 0): unknown {
  if (typeof value === 'string') return redactString(value, known);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, known, depth + 1));
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) {
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
    out[k] = SECRET_KEY.test(k) && v !== null && typeof v !== 'number' && typeof v !== 'boolean' ? REDACTED : redactSecrets(v, known, depth + 1);
  }
  return out;
}

function redactString(s: string, known: readonly string[]): string {
  let out = s;
  for (const token of known) if (token.length >= 8 && out.includes(token)) out = out.split(token).join(REDACTED);
  for (const re of SECRET_VALUE) {
    out = out.replace(re, (match, lead?: unknown) => {
      // Patterns with a kept lead (a query parameter's name, a URL's scheme and user) keep it.
      return typeof lead === 'string' && match.startsWith(lead) ? `${lead}${REDACTED}${match.endsWith('@') ? '@' : ''}` : REDACTED;
    });
  }
  return out;
}
