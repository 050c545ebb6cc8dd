/**
 * A webhook sender as GitHub and Stripe are: every delivery that is not
 * answered 200 (an error status, a cut connection, a timeout) is sent again
 * with the same bytes and, on a verified topic, the same delivery id, with
 * backoff, until a horizon.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { sleep } from '../support/processes';

export interface Delivery {
  n: number;
  deliveryId: string | null;
  /** Every attempt's answer: an HTTP status with the body's status/error, or the transport error. */
  answers: string[];
  /** 'accepted' | 'duplicate' once answered 200, else 'gave up'. */
  final: 'accepted' | 'duplicate' | 'gave up';
}

export interface SenderOptions {
  url: () => string;
  topic: string;
  fault: string;
  /** A github-verified topic: sign with this secret and send X-GitHub-Delivery. */
  githubSecret?: string;
  /** Give up on a delivery after this long (a real sender's horizon is days; the fault runs are bounded). */
  horizonMs: number;
}

export async function deliver(opts: SenderOptions, n: number): Promise<Delivery> {
  const bytes = Buffer.from(JSON.stringify({ fault: opts.fault, n }));
  const d: Delivery = { n, deliveryId: opts.githubSecret ? randomUUID() : null, answers: [], final: 'gave up' };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.githubSecret) {
    headers['x-github-event'] = 'push';
    headers['x-github-delivery'] = d.deliveryId!;
    headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', opts.githubSecret).update(bytes).digest('hex')}`;
  }
  const giveUpAt = Date.now() + opts.horizonMs;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const res = await fetch(`${opts.url()}/universal_webhook/${opts.topic}`, {
        method: 'POST',
        headers,
        body: bytes,
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      let status = '';
      try {
        const j = JSON.parse(text) as { status?: string; error?: string };
        status = j.status ?? j.error ?? '';
      } catch {
        status = text.slice(0, 40);
      }
      d.answers.push(`${res.status} ${status}`);
      if (res.status === 200 && (status === 'accepted' || status === 'duplicate')) {
        d.final = status;
        return d;
      }
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      d.answers.push(`error ${e.cause?.code ?? e.name}`);
    }
    if (Date.now() > giveUpAt) return d;
    await sleep(Math.min(1000, 100 * 2 ** Math.min(attempt, 4)));
  }
}

/** Sends events 0..count-1 paced at `ratePerSecond`, at most `width` deliveries in flight. */
export async function load(opts: SenderOptions, count: number, ratePerSecond: number, width = 16): Promise<Delivery[]> {
  const out: Delivery[] = new Array(count);
  const t0 = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const n = next++;
        const at = t0 + (n * 1000) / ratePerSecond;
        if (at > Date.now()) await sleep(at - Date.now());
        out[n] = await deliver(opts, n);
      }
    }),
  );
  return out;
}
