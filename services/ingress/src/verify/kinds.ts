import { createHash } from 'node:crypto';
import { internal } from '@hookyard/core';
import { anyDigestEqual, anyEqual, decodeSignature, header, hmac, timestampMiss } from './crypto';
import type { Headers } from './crypto';
import type { VerifierKind } from './settings';

/** What one kind's check sees: secrets already resolved, settings already compiled. */
export interface KindInput {
  settings: Record<string, unknown>;
  secrets: readonly Buffer[];
  headers: Headers;
  rawBody: Buffer;
  /** Epoch ms. */
  now: number;
}

/** An answer the sender gets instead of "accepted": a handshake it expects, with nothing kept. */
export interface SenderReply {
  status: number;
  /** JSON text. */
  body: string;
}

/**
 * ok: authentic; `reply` when the delivery is the sender's handshake (Slack's
 * url_verification, GitHub's ping), answered as is and kept nowhere.
 * not ok: `reason` is for logs; `status` 400 with `body` when the delivery is
 * authentic but cannot be accepted (the sender is told why), else the
 * constant 401.
 */
export type KindOutcome = { ok: true; deliveryId: string | null; reply?: SenderReply } | { ok: false; reason: string; status?: 400; body?: string };

const fail = (reason: string): KindOutcome => ({ ok: false, reason });

/** Delivery ids become store keys: a long one is replaced by its digest so keys stay bounded. */
function boundedId(id: string | undefined): string | null {
  if (id === undefined || id === '') return null;
  return id.length <= 200 ? id : `sha256:${createHash('sha256').update(id).digest('hex')}`;
}

function sharedSecret(input: KindInput): KindOutcome {
  const name = input.settings.header as string;
  const given = header(input.headers, name);
  if (given === undefined) return fail(`missing header ${name}`);
  if (!anyEqual([Buffer.from(given, 'utf8')], input.secrets)) return fail(`header ${name} does not match any secret`);
  const idHeader = input.settings.delivery_id_header as string | undefined;
  return { ok: true, deliveryId: idHeader ? boundedId(header(input.headers, idHeader)) : null };
}

/** Generic HMAC; GitHub is this with fixed settings. */
function genericHmac(input: KindInput): KindOutcome {
  const s = input.settings;
  const name = s.header as string;
  const prefix = (s.prefix as string | undefined) ?? '';
  const given = header(input.headers, name);
  if (given === undefined) return fail(`missing header ${name}`);
  if (!given.startsWith(prefix)) return fail(`header ${name} does not start with ${JSON.stringify(prefix)}`);
  const encoding = s.encoding as 'hex' | 'base64';
  const signature = decodeSignature(given.slice(prefix.length).trim(), encoding);
  if (!signature) return fail(`header ${name} is not ${encoding}`);
  let parts: Array<string | Buffer> = [input.rawBody];
  const tsHeader = s.timestamp_header as string | undefined;
  if (tsHeader) {
    const ts = header(input.headers, tsHeader);
    const miss = timestampMiss(ts, input.now, s.tolerance_seconds as number);
    if (miss) return fail(`${tsHeader}: ${miss}`);
    parts = [`${ts}.`, input.rawBody];
  }
  const expected = input.secrets.map((key) => hmac(s.algorithm as string, key, parts));
  if (!anyDigestEqual([signature], expected)) return fail(`signature in ${name} does not match`);
  const idHeader = s.delivery_id_header as string | undefined;
  return { ok: true, deliveryId: idHeader ? boundedId(header(input.headers, idHeader)) : null };
}

const GITHUB = { header: 'x-hub-signature-256', prefix: 'sha256=', encoding: 'hex', algorithm: 'sha256', delivery_id_header: 'x-github-delivery' };

/**
 * GitHub: the HMAC of the body, then `X-GitHub-Delivery` is required (it is
 * what makes a redelivery a duplicate; without it a replayed body would be
 * kept again and again), and the `ping` event GitHub sends when a webhook is
 * created is answered `{"status":"pong"}` and kept nowhere.
 */
function github(input: KindInput): KindOutcome {
  const outcome = genericHmac({ ...input, settings: GITHUB });
  if (!outcome.ok) return outcome;
  if (outcome.deliveryId === null) {
    return {
      ok: false,
      reason: 'missing header x-github-delivery',
      status: 400,
      body: JSON.stringify({
        error: 'missing header X-GitHub-Delivery: a github verifier takes a delivery only with its delivery id (it makes a redelivery a duplicate)',
      }),
    };
  }
  if (header(input.headers, 'x-github-event') === 'ping') return { ...outcome, reply: { status: 200, body: '{"status":"pong"}' } };
  return outcome;
}

/** `Stripe-Signature: t=…,v1=…,v1=…`: any v1 by any secret passes; the event id is the delivery id. */
function stripe(input: KindInput): KindOutcome {
  const given = header(input.headers, 'stripe-signature');
  if (given === undefined) return fail('missing header stripe-signature');
  let t: string | undefined;
  const v1: Buffer[] = [];
  for (const item of given.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't' && t === undefined) t = value;
    if (key === 'v1') {
      const sig = decodeSignature(value, 'hex');
      if (sig) v1.push(sig);
    }
  }
  if (v1.length === 0) return fail('stripe-signature holds no v1 signature');
  const miss = timestampMiss(t, input.now, input.settings.tolerance_seconds as number);
  if (miss) return fail(`stripe-signature t: ${miss}`);
  const expected = input.secrets.map((key) => hmac('sha256', key, [`${t}.`, input.rawBody]));
  if (!anyDigestEqual(v1, expected)) return fail('no v1 signature in stripe-signature matches');
  return { ok: true, deliveryId: stripeEventId(input.rawBody) };
}

/** Stripe resends the same event (same `id`) under new timestamps: the id is what dedupes. */
function stripeEventId(body: Buffer): string | null {
  try {
    const event: unknown = JSON.parse(body.toString('utf8'));
    if (event && typeof event === 'object' && typeof (event as { id?: unknown }).id === 'string') {
      return boundedId((event as { id: string }).id);
    }
  } catch {
    // Verified but not JSON: accepted without a replay claim; the timestamp window still holds.
  }
  return null;
}

function slack(input: KindInput): KindOutcome {
  const given = header(input.headers, 'x-slack-signature');
  if (given === undefined) return fail('missing header x-slack-signature');
  if (!given.startsWith('v0=')) return fail('x-slack-signature does not start with v0=');
  const signature = decodeSignature(given.slice(3), 'hex');
  if (!signature) return fail('x-slack-signature is not hex');
  const ts = header(input.headers, 'x-slack-request-timestamp');
  const miss = timestampMiss(ts, input.now, input.settings.tolerance_seconds as number);
  if (miss) return fail(`x-slack-request-timestamp: ${miss}`);
  const expected = input.secrets.map((key) => hmac('sha256', key, [`v0:${ts}:`, input.rawBody]));
  if (!anyDigestEqual([signature], expected)) return fail('x-slack-signature does not match');
  // Slack has no delivery id; a retry resends the same timestamp and body, so the
  // decoded (canonical) signature identifies the delivery whatever X-Slack-Retry-Num says.
  const deliveryId = `${ts}.${signature.toString('hex')}`;
  const challenge = urlVerificationChallenge(input.rawBody);
  if (challenge !== undefined) return { ok: true, deliveryId, reply: { status: 200, body: JSON.stringify({ challenge }) } };
  return { ok: true, deliveryId };
}

/**
 * Slack's Events API checks a Request URL with a signed
 * `{"type":"url_verification","challenge":"..."}` and accepts the URL only
 * when the answer carries the challenge back.
 */
function urlVerificationChallenge(body: Buffer): string | undefined {
  // Cheap test first: most deliveries are events, not handshakes.
  if (!body.includes('url_verification')) return undefined;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (parsed && typeof parsed === 'object' && (parsed as { type?: unknown }).type === 'url_verification') {
      const challenge = (parsed as { challenge?: unknown }).challenge;
      if (typeof challenge === 'string') return challenge;
    }
  } catch {
    // Not JSON: an interactive payload (form-encoded) or a slash command, not the handshake.
  }
  return undefined;
}

/** `whsec_` + base64, as the Standard Webhooks libraries read it. */
export function standardWebhooksKey(secret: Buffer): Buffer {
  const text = secret.toString('utf8').trim();
  const body = text.startsWith('whsec_') ? text.slice(6) : text;
  const key = decodeSignature(body, 'base64');
  if (!key) throw internal('a standard-webhooks secret must be whsec_ followed by base64');
  return key;
}

function standardWebhooks(input: KindInput): KindOutcome {
  const id = header(input.headers, 'webhook-id');
  const ts = header(input.headers, 'webhook-timestamp');
  const given = header(input.headers, 'webhook-signature');
  if (id === undefined || id === '') return fail('missing header webhook-id');
  if (given === undefined) return fail('missing header webhook-signature');
  const miss = timestampMiss(ts, input.now, input.settings.tolerance_seconds as number);
  if (miss) return fail(`webhook-timestamp: ${miss}`);
  const candidates: Buffer[] = [];
  for (const entry of given.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || value === undefined) continue; // other schemes (v1a) are not ours to check
    const sig = decodeSignature(value, 'base64');
    if (sig) candidates.push(sig);
  }
  if (candidates.length === 0) return fail('webhook-signature holds no v1 signature');
  const expected = input.secrets.map((secret) => hmac('sha256', standardWebhooksKey(secret), [`${id}.${ts}.`, input.rawBody]));
  if (!anyDigestEqual(candidates, expected)) return fail('no v1 signature in webhook-signature matches');
  return { ok: true, deliveryId: boundedId(id) };
}

export const KIND_CHECKS: Record<VerifierKind, (input: KindInput) => KindOutcome> = {
  shared_secret: sharedSecret,
  hmac: genericHmac,
  github,
  stripe,
  slack,
  'standard-webhooks': standardWebhooks,
};
