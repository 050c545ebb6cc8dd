import { badInput } from '@hookyard/core';
import type { BucketLimit, TakeManyResult, TakeResult } from './types';

/**
 * The token bucket both stores keep (memory-buckets.ts here, take_token.lua
 * in Redis, with the same arithmetic): a bucket is its "theoretical arrival
 * time" `tat` in epoch ms. A take moves it one interval (1000 / rate ms) on;
 * it is refused when that would put `tat` more than `burst` intervals ahead
 * of now. A bucket whose `tat` is past is full, the same as no bucket.
 */

const BUCKET_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** The take's arguments, refused with one line per fault (a caller's bug, not a passing condition). */
export function checkTake(bucket: string, key: string, limit: BucketLimit, now: number, count = 1): void {
  const errors: string[] = [];
  if (!(Number.isInteger(count) && count >= 1)) errors.push(`bucket take count must be a whole number >= 1, got ${count}`);
  if (!BUCKET_NAME.test(bucket)) errors.push(`bucket ${JSON.stringify(bucket)} must match ${BUCKET_NAME.source}`);
  if (typeof key !== 'string' || key.length === 0) errors.push('bucket key must be a non-empty string');
  if (!(Number.isFinite(limit.rate) && limit.rate > 0)) errors.push(`bucket rate must be a finite number above 0, got ${limit.rate}`);
  if (!(Number.isInteger(limit.burst) && limit.burst >= 1)) errors.push(`bucket burst must be a whole number >= 1, got ${limit.burst}`);
  if (!Number.isFinite(now)) errors.push(`bucket take time must be epoch ms, got ${now}`);
  if (errors.length > 0) throw badInput(`bucket take refused: ${errors.join('; ')}`, errors);
}

/** Milliseconds per token. */
export function intervalMs(limit: BucketLimit): number {
  return 1000 / limit.rate;
}

/**
 * One take on a bucket kept at `kept` (0 or a past time: full): the result and
 * the `tat` to keep when taken (rounded to the microsecond, as the script keeps it).
 */
export function takeStep(kept: number, now: number, interval: number, burst: number): { result: TakeResult; tat?: number } {
  const fill = interval * burst;
  const tat = Math.max(kept, now);
  const ahead = tat + interval - now;
  if (ahead > fill) return { result: { ok: false, retryAfterMs: Math.max(1, Math.ceil(ahead - fill)) } };
  return { result: { ok: true }, tat: Math.round((now + ahead) * 1000) / 1000 };
}

/**
 * `count` takes one after another at `now` on a bucket kept at `kept`: how
 * many passed, the wait after them (0 when all passed), and the `tat` to keep
 * when any passed. A refusal moves nothing, so the first one ends the run.
 */
export function takeManySteps(kept: number, now: number, interval: number, burst: number, count: number): { result: TakeManyResult; tat?: number } {
  let tat: number | undefined;
  let at = kept;
  for (let granted = 0; granted < count; granted += 1) {
    const step = takeStep(at, now, interval, burst);
    if (!step.result.ok) return { result: { granted, retryAfterMs: step.result.retryAfterMs }, tat };
    at = tat = step.tat ?? at;
  }
  return { result: { granted: count, retryAfterMs: 0 }, tat };
}

/** A take of one request, from the answer of `takeMany` with a count of 1. */
export function singleTake(r: TakeManyResult): TakeResult {
  return r.granted === 1 ? { ok: true } : { ok: false, retryAfterMs: r.retryAfterMs };
}
