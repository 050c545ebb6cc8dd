import type { VerifierBinding } from '@hookyard/core';

/** The verifier kinds a topic can be bound to. */
export type VerifierKind = VerifierBinding['kind'];
export const VERIFIER_KINDS: readonly VerifierKind[] = ['shared_secret', 'hmac', 'github', 'stripe', 'slack', 'standard-webhooks'];

export const HMAC_ALGORITHMS = ['sha256', 'sha512', 'sha1'] as const;
export const SIGNATURE_ENCODINGS = ['hex', 'base64'] as const;

/** Senders' clocks drift and deliveries queue: five minutes is what Stripe, Slack and Standard Webhooks use. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** Kinds without a signed timestamp remember a delivery id this long. */
export const UNTIMED_REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

type FieldSpec =
  | { type: 'header'; def?: string }
  | { type: 'enum'; values: readonly string[]; def: string }
  | { type: 'text'; def: string; max: number }
  | { type: 'seconds'; def?: number; min: number; max: number }
  | { type: 'boolean'; def: boolean };

const tolerance: FieldSpec = { type: 'seconds', def: DEFAULT_TOLERANCE_SECONDS, min: 1, max: 86_400 };
/** Optional override of how long a delivery id is remembered (e.g. Stripe retries the same event for days). */
const replayWindow: FieldSpec = { type: 'seconds', min: 1, max: 30 * 86_400 };

/** Per-kind settings, their defaults, and what is accepted. A field absent here is refused. */
export const KIND_FIELDS: Record<VerifierKind, Record<string, FieldSpec>> = {
  shared_secret: {
    header: { type: 'header', def: 'x-webhook-secret' },
    allow_get: { type: 'boolean', def: false },
    delivery_id_header: { type: 'header' },
    replay_window_seconds: replayWindow,
  },
  hmac: {
    header: { type: 'header', def: 'x-signature' },
    algorithm: { type: 'enum', values: HMAC_ALGORITHMS, def: 'sha256' },
    encoding: { type: 'enum', values: SIGNATURE_ENCODINGS, def: 'hex' },
    prefix: { type: 'text', def: '', max: 32 },
    timestamp_header: { type: 'header' },
    tolerance_seconds: tolerance,
    delivery_id_header: { type: 'header' },
    replay_window_seconds: replayWindow,
  },
  github: { replay_window_seconds: replayWindow },
  stripe: { tolerance_seconds: tolerance, replay_window_seconds: replayWindow },
  slack: { tolerance_seconds: tolerance, replay_window_seconds: replayWindow },
  'standard-webhooks': { tolerance_seconds: tolerance, replay_window_seconds: replayWindow },
};

/** RFC 9110 token characters: what a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

/**
 * Checks one kind's settings and fills in defaults. Header names are kept lower-case
 * (lookups are case-insensitive). Returns one line per miss, each naming the field.
 */
export function compileSettings(kind: VerifierKind, raw: unknown): { values: Record<string, unknown>; errors: string[] } {
  const fields = KIND_FIELDS[kind];
  const errors: string[] = [];
  const values: Record<string, unknown> = {};
  if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
    return { values, errors: [`settings must be an object, got ${JSON.stringify(raw)}`] };
  }
  const given = (raw ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    if (!(name in fields)) {
      const known = Object.keys(fields);
      errors.push(`settings.${name} is not a setting of kind ${kind} (known: ${known.length ? known.join(', ') : 'none'})`);
    }
  }
  for (const [name, spec] of Object.entries(fields)) {
    const value = given[name];
    const field = `settings.${name}`;
    if (value === undefined || value === null) {
      if (spec.def !== undefined) values[name] = spec.def;
      continue;
    }
    const miss = checkField(field, spec, value);
    if (miss) errors.push(miss);
    else values[name] = spec.type === 'header' ? (value as string).toLowerCase() : value;
  }
  if (kind === 'hmac' && given.tolerance_seconds !== undefined && given.timestamp_header === undefined) {
    errors.push('settings.tolerance_seconds needs settings.timestamp_header (without a signed timestamp there is nothing to hold to a window)');
  }
  // A generic HMAC without a timestamp has no window; showing a default tolerance would mislead.
  if (kind === 'hmac' && values.timestamp_header === undefined) delete values.tolerance_seconds;
  const window = values.replay_window_seconds;
  const tol = values.tolerance_seconds;
  if (typeof window === 'number' && typeof tol === 'number' && window < 2 * tol) {
    errors.push(`settings.replay_window_seconds must be at least 2 × tolerance_seconds (${2 * tol}), got ${window}`);
  }
  return { values, errors };
}

function checkField(field: string, spec: FieldSpec, value: unknown): string | undefined {
  switch (spec.type) {
    case 'header':
      return typeof value === 'string' && HEADER_NAME.test(value) ? undefined : `${field} must be an HTTP header name, got ${JSON.stringify(value)}`;
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value)
        ? undefined
        : `${field} must be one of ${spec.values.join('|')}, got ${JSON.stringify(value)}`;
    case 'text':
      return typeof value === 'string' && value.length <= spec.max && /^[\x21-\x7e]*$/.test(value)
        ? undefined
        : `${field} must be printable text of at most ${spec.max} characters without spaces, got ${JSON.stringify(value)}`;
    case 'seconds':
      return typeof value === 'number' && Number.isInteger(value) && value >= spec.min && value <= spec.max
        ? undefined
        : `${field} must be a whole number of seconds from ${spec.min} to ${spec.max}, got ${JSON.stringify(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${field} must be true or false, got ${JSON.stringify(value)}`;
  }
}

/**
 * How long senders keep retrying one delivery with a fresh signature and
 * timestamp: Stripe up to three days, Standard Webhooks senders (Svix) about
 * 28 hours, Slack a few minutes. The delivery id must be remembered that long,
 * or a retry after our lost 200 would be kept twice.
 */
const SENDER_RETRY_HORIZON_MS: Partial<Record<VerifierKind, number>> = {
  stripe: 3 * 24 * 3600 * 1000,
  'standard-webhooks': 2 * 24 * 3600 * 1000,
  slack: 3600 * 1000,
};

/**
 * How long the door remembers a delivery id: the sender's retry horizon (at
 * least twice the signed-timestamp window), or a day for kinds without a
 * timestamp; `replay_window_seconds` overrides it.
 */
export function replayWindowMs(kind: VerifierKind, values: Record<string, unknown>): number {
  const override = values.replay_window_seconds;
  if (typeof override === 'number') return override * 1000;
  const timed = kind === 'stripe' || kind === 'slack' || kind === 'standard-webhooks' || (kind === 'hmac' && values.timestamp_header !== undefined);
  const tol = typeof values.tolerance_seconds === 'number' ? values.tolerance_seconds : DEFAULT_TOLERANCE_SECONDS;
  return timed ? Math.max(2 * tol * 1000, SENDER_RETRY_HORIZON_MS[kind] ?? 0) : UNTIMED_REPLAY_WINDOW_MS;
}
