/**
 * The discovery cache all three providers keep (DiscoveryCache), on an
 * injected clock: reuse within the TTL, a refresh after it, the last good
 * answer kept when a refresh fails (and no new try before retryAfterMs), one
 * discovery for concurrent lookups, a changed registration starting over,
 * check() bypassing and filling, and the discovery status told only of real
 * discoveries.
 */
import { HookyardError, silentLogger, unavailable, type RemoteToolRecord } from '@hookyard/core';
import { DiscoveryCache } from '../src/provider/discovery-cache';

function record(updated = '2026-01-01T00:00:00.000Z'): RemoteToolRecord {
  return { name: 'svc', kind: 'openapi', endpoint: 'http://svc.example', timeout_ms: 1000, headers: {}, created_at: updated, updated_at: updated };
}

function setup() {
  let clock = 1_000_000;
  let calls = 0;
  let answer: () => Promise<string[]> = async () => [`v${calls}`];
  const outcomes: string[] = [];
  const warnings: string[] = [];
  const logger = { ...silentLogger(), warn: (_obj: unknown, msg?: string) => void warnings.push(msg ?? '') };
  const cache = new DiscoveryCache<string[]>({
    discover: async () => {
      calls++;
      return answer();
    },
    toolsOf: (keys) => keys.map((key) => ({ key })),
    fingerprint: (r) => r.updated_at,
    messages: { kept: 'kept the last good answer', none: 'no answer' },
    logger,
    ttlMs: 1_000,
    retryAfterMs: 5_000,
    now: () => clock,
    onDiscovery: (_r, outcome) => outcomes.push('error' in outcome ? `error:${outcome.error.kind}` : `tools:${outcome.tools.map((t) => t.key).join(',')}`),
  });
  return {
    cache,
    outcomes,
    warnings,
    calls: () => calls,
    tick: (ms: number) => (clock += ms),
    answer: (a: () => Promise<string[]>) => (answer = a),
  };
}

describe('DiscoveryCache', () => {
  it('reuses an answer within the TTL and asks again after it', async () => {
    const t = setup();
    expect(await t.cache.get(record())).toEqual(['v1']);
    t.tick(999);
    expect(await t.cache.get(record())).toEqual(['v1']);
    expect(t.calls()).toBe(1);
    t.tick(1);
    expect(await t.cache.get(record())).toEqual(['v2']);
    expect(t.outcomes).toEqual(['tools:v1', 'tools:v2']);
  });

  it('a failed refresh keeps the last good answer, logs, and is not tried again before retryAfterMs', async () => {
    const t = setup();
    await t.cache.get(record());
    t.answer(async () => {
      throw unavailable('down');
    });
    t.tick(1_000);
    expect(await t.cache.get(record())).toEqual(['v1']);
    expect(t.warnings).toEqual(['kept the last good answer']);
    t.tick(4_999);
    expect(await t.cache.get(record())).toEqual(['v1']);
    expect(t.calls()).toBe(2);
    t.tick(1);
    await t.cache.get(record());
    expect(t.calls()).toBe(3);
    expect(t.outcomes).toEqual(['tools:v1', 'error:unavailable', 'error:unavailable']);
  });

  it('with no good answer the failure is thrown, and remembered for retryAfterMs', async () => {
    const t = setup();
    t.answer(async () => {
      throw new HookyardError('timeout', 'too slow');
    });
    await expect(t.cache.get(record())).rejects.toMatchObject({ kind: 'timeout', message: 'too slow' });
    await expect(t.cache.get(record())).rejects.toMatchObject({ kind: 'timeout' });
    expect(t.calls()).toBe(1);
    expect(t.warnings).toEqual(['no answer']);
  });

  it('concurrent lookups share one discovery', async () => {
    const t = setup();
    let release: (v: string[]) => void = () => undefined;
    t.answer(() => new Promise<string[]>((resolve) => (release = resolve)));
    const both = Promise.all([t.cache.get(record()), t.cache.get(record())]);
    await new Promise((resolve) => setImmediate(resolve));
    release(['once']);
    expect(await both).toEqual([['once'], ['once']]);
    expect(t.calls()).toBe(1);
  });

  it('a changed registration starts over; peek answers only for the current one', async () => {
    const t = setup();
    await t.cache.get(record());
    expect(t.cache.peek(record())).toEqual(['v1']);
    expect(t.cache.peek(record('2026-02-02T00:00:00.000Z'))).toBeUndefined();
    expect(await t.cache.get(record('2026-02-02T00:00:00.000Z'))).toEqual(['v2']);
  });

  it('check() asks now, throws what it met as it was, and fills the cache; forget() drops it', async () => {
    const t = setup();
    await t.cache.get(record());
    expect(await t.cache.check(record())).toEqual(['v2']);
    expect(await t.cache.get(record())).toEqual(['v2']);
    t.answer(async () => {
      throw new HookyardError('bad_input', 'not a document');
    });
    await expect(t.cache.check(record())).rejects.toMatchObject({ kind: 'bad_input' });
    expect(t.outcomes).toEqual(['tools:v1', 'tools:v2', 'error:bad_input']);
    t.cache.forget('svc');
    expect(t.cache.peek(record())).toBeUndefined();
  });
});
