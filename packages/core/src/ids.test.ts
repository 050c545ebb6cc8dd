import { RUN_ID_PATTERN, newRunId, randomHex16 } from './ids';

describe('pooled random ids', () => {
  it('randomHex16 gives 16 lowercase hex characters, never the same twice across many pool refills', () => {
    const seen = new Set<string>();
    const malformed: string[] = [];
    // 20,000 nonces of 8 bytes each refill the 4 KiB pool about 40 times.
    for (let i = 0; i < 20_000; i += 1) {
      const nonce = randomHex16();
      if (!/^[0-9a-f]{16}$/.test(nonce)) malformed.push(nonce);
      seen.add(nonce);
    }
    expect(malformed).toEqual([]);
    expect(seen.size).toBe(20_000);
  });

  it('run ids drawn between nonces keep their shape and stay distinct', () => {
    const ids = new Set<string>();
    const malformed: string[] = [];
    for (let i = 0; i < 2_000; i += 1) {
      randomHex16();
      const id = newRunId(1_700_000_000_000);
      if (!RUN_ID_PATTERN.test(id)) malformed.push(id);
      ids.add(id);
    }
    expect(malformed).toEqual([]);
    expect(ids.size).toBe(2_000);
  });
});
