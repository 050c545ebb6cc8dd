import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CliError, EXIT } from '../client';

/** The senders `hookyard send --sign` imitates. */
export const SIGN_KINDS = ['github', 'stripe', 'slack', 'standard-webhooks'] as const;
export type SignKind = (typeof SIGN_KINDS)[number];

/** Kinds whose delivery id the sender chooses (and `--delivery-id` sets); stripe's is the event's `id`, slack's is derived. */
export const CHOSEN_DELIVERY_ID: ReadonlySet<SignKind> = new Set(['github', 'standard-webhooks']);

/**
 * The secret `--secret` names: `env:NAME` from this process's environment or
 * `file:/path` (trailing newlines dropped, as the ingress reads a mounted file).
 * Never a literal: a secret on the command line shows in the process list.
 */
export function readSecret(ref: string): Buffer {
  if (ref.startsWith('env:')) {
    const name = ref.slice(4);
    const value = process.env[name];
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new CliError(`--secret ${ref}: env: must be followed by a variable name`, EXIT.usage);
    if (value === undefined || value === '') throw new CliError(`--secret ${ref}: the variable ${name} is not set (or empty) in this shell`, EXIT.usage);
    return Buffer.from(value, 'utf8');
  }
  if (ref.startsWith('file:')) {
    let raw: Buffer;
    try {
      raw = readFileSync(ref.slice(5));
    } catch (err) {
      throw new CliError(`--secret ${ref}: cannot read the file: ${(err as Error).message}`, EXIT.usage);
    }
    let end = raw.length;
    while (end > 0 && (raw[end - 1] === 0x0a || raw[end - 1] === 0x0d)) end -= 1;
    if (end === 0) throw new CliError(`--secret ${ref}: the file is empty`, EXIT.usage);
    return raw.subarray(0, end);
  }
  throw new CliError('--secret must be a reference, env:NAME or file:/path (a literal secret would show in the process list)', EXIT.usage);
}

const hmacHex = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest('hex');

/** `whsec_` + base64 as the Standard Webhooks libraries read it (a bare base64 key too). */
function standardWebhooksKey(secret: Buffer): Buffer {
  const text = secret.toString('utf8').trim();
  const b64 = text.startsWith('whsec_') ? text.slice(6) : text;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new CliError('--secret: a standard-webhooks secret must be whsec_ followed by base64', EXIT.usage);
  return Buffer.from(b64, 'base64');
}

export interface Signed {
  headers: Record<string, string>;
  /** The delivery id the receiver will see (null when the receiver derives it: stripe without an event id). */
  deliveryId: string | null;
}

/**
 * The headers `kind`'s sender puts on `body`, signed with `secret` at `nowMs`:
 * GitHub `X-Hub-Signature-256` and `X-GitHub-Delivery`; Stripe
 * `Stripe-Signature: t=…,v1=…`; Slack `X-Slack-Request-Timestamp` and
 * `X-Slack-Signature: v0=…`; Standard Webhooks `webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,…`.
 */
export function signDelivery(kind: SignKind, secret: Buffer, body: Buffer, nowMs: number, deliveryId?: string): Signed {
  const ts = String(Math.floor(nowMs / 1000));
  switch (kind) {
    case 'github': {
      const id = deliveryId ?? randomUUID();
      return { headers: { 'X-Hub-Signature-256': `sha256=${hmacHex(secret, body)}`, 'X-GitHub-Delivery': id }, deliveryId: id };
    }
    case 'stripe': {
      const sig = hmacHex(secret, Buffer.concat([Buffer.from(`${ts}.`), body]));
      return { headers: { 'Stripe-Signature': `t=${ts},v1=${sig}` }, deliveryId: stripeEventId(body) };
    }
    case 'slack': {
      const sig = hmacHex(secret, Buffer.concat([Buffer.from(`v0:${ts}:`), body]));
      return { headers: { 'X-Slack-Request-Timestamp': ts, 'X-Slack-Signature': `v0=${sig}` }, deliveryId: `${ts}.${sig}` };
    }
    case 'standard-webhooks': {
      const id = deliveryId ?? `msg_${randomUUID().replaceAll('-', '')}`;
      const sig = createHmac('sha256', standardWebhooksKey(secret))
        .update(Buffer.concat([Buffer.from(`${id}.${ts}.`), body]))
        .digest('base64');
      return { headers: { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${sig}` }, deliveryId: id };
    }
  }
}

function stripeEventId(body: Buffer): string | null {
  try {
    const event = JSON.parse(body.toString('utf8')) as { id?: unknown };
    return typeof event?.id === 'string' ? event.id : null;
  } catch {
    return null;
  }
}
