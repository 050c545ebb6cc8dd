import { HINT_MAX_MESSAGE_BYTES, HINT_MAX_PAYLOAD_BYTES, decodeHints, encodeHints } from '../src/run-hints';

describe('plan hints', () => {
  it('round-trip: the payload text arrives byte for byte, and the header value holds no CR or LF', () => {
    const text = '{\r\n "a": [1, 2],\n "s": "line\\nbreak", "__proto__": {"x": 1}\n}';
    const value = encodeHints([{ hook: 'h"1', topic: 'orders', payloadJson: text }, undefined]);
    expect(value).not.toMatch(/[\r\n]/);
    expect(decodeHints(value!, 2)).toEqual([{ hook: 'h"1', topic: 'orders', payloadJson: text }, undefined]);
  });

  it('no hint when nothing fits; a payload past its bound, or past the message budget, travels bare', () => {
    expect(encodeHints([undefined, undefined])).toBeNull();
    const big = `"${'é'.repeat(HINT_MAX_PAYLOAD_BYTES / 2)}"`; // under the bound in characters, over it in UTF-8 bytes
    expect(encodeHints([{ hook: 'h', topic: 't', payloadJson: big }])).toBeNull();
    const part = `"${'x'.repeat(HINT_MAX_PAYLOAD_BYTES - 100)}"`;
    const n = Math.ceil(HINT_MAX_MESSAGE_BYTES / part.length) + 2;
    const decoded = decodeHints(encodeHints(Array.from({ length: n }, () => ({ hook: 'h', topic: 't', payloadJson: part })))!, n)!;
    const carried = decoded.filter((d) => d !== undefined).length;
    expect(carried).toBeGreaterThan(0);
    expect(carried).toBeLessThan(n);
    expect(carried * part.length).toBeLessThanOrEqual(HINT_MAX_MESSAGE_BYTES);
  });

  it('a malformed or misaligned header gives no hints, never an error', () => {
    expect(decodeHints(undefined, 1)).toBeNull();
    expect(decodeHints('not json', 1)).toBeNull();
    expect(decodeHints('[0, 0]', 1)).toBeNull();
    expect(decodeHints('{"a": 1}', 1)).toBeNull();
    expect(decodeHints('[[1, "t", "{}"], ["h", "t"], ["h", "t", {}]]', 3)).toEqual([undefined, undefined, undefined]);
  });
});
