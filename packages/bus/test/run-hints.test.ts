import { HINT_MAX_MESSAGE_BYTES, HINT_MAX_PAYLOAD_BYTES, decodeHints, encodeHints } from '../src/run-hints';

describe('plan hints', () => {
  it('round-trip: the payload text arrives byte for byte, and the header value holds no CR or LF', () => {
    const text = '{\r\n "a": [1, 2],\n "s": "line\\nbreak", "__proto__": {"x": 1}\n}';
    const value = encodeHints([{ hook: 'h"1', topic: 'orders', payloadJson: text }, undefined]);
    expect(value).not.toMatch(/[\r\n]/);
    expect(decodeHints(value!, 2)).toEqual([{ hook: 'h"1', topic: 'orders', payloadJson: text }, undefined]);
  });

  it("an event's runs share one copy of its payload: a 100-hook fan-out fits in one message", () => {
    const payloadJson = JSON.stringify({ blob: 'x'.repeat(20_000) });
    const hints = Array.from({ length: 100 }, (_, i) => ({ hook: `hook-${i}`, topic: 'fan', payloadJson }));
    const value = encodeHints(hints)!;
    expect(Buffer.byteLength(value)).toBeLessThan(payloadJson.length + 100 * 40);
    expect(decodeHints(value, 100)).toEqual(hints);
  });

  it('no hint when nothing fits; a payload past its bound, or past the message budget, travels bare', () => {
    expect(encodeHints([undefined, undefined])).toBeNull();
    const big = `"${'é'.repeat(HINT_MAX_PAYLOAD_BYTES / 2)}"`; // under the bound in characters, over it in UTF-8 bytes
    expect(encodeHints([{ hook: 'h', topic: 't', payloadJson: big }])).toBeNull();
    const distinct = (i: number) => `"${String(i).padStart(6, '0')}${'x'.repeat(HINT_MAX_PAYLOAD_BYTES - 100)}"`;
    const n = Math.ceil(HINT_MAX_MESSAGE_BYTES / HINT_MAX_PAYLOAD_BYTES) + 2;
    const hints = Array.from({ length: n }, (_, i) => ({ hook: 'h', topic: 't', payloadJson: distinct(i) }));
    const value = encodeHints(hints)!;
    expect(Buffer.byteLength(value)).toBeLessThanOrEqual(HINT_MAX_MESSAGE_BYTES);
    const decoded = decodeHints(value, n)!;
    const carried = decoded.filter((d) => d !== undefined);
    expect(carried.length).toBeGreaterThan(0);
    expect(carried.length).toBeLessThan(n);
    for (const [i, d] of decoded.entries()) if (d) expect(d.payloadJson).toBe(distinct(i));
  });

  it('a malformed or misaligned header gives no hints, never an error', () => {
    expect(decodeHints(undefined, 1)).toBeNull();
    expect(decodeHints('not json', 1)).toBeNull();
    expect(decodeHints('[[], [0, 0]]', 1)).toBeNull();
    expect(decodeHints('[[], 0]', 1)).toBeNull();
    expect(decodeHints('{"a": 1}', 1)).toBeNull();
    expect(decodeHints('[["{}"], [[1, "t", 0], ["h", "t"], ["h", "t", 5], ["h", "t", "0"]]]', 4)).toEqual([undefined, undefined, undefined, undefined]);
    expect(decodeHints('[["{}"], [["h", "t", 0]]]', 1)).toEqual([{ hook: 'h', topic: 't', payloadJson: '{}' }]);
  });
});
