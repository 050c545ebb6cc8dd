import { INTERACTION_ID_PATTERN, argsHash, canonicalJson, newInteractionId } from './interactions';

describe('interaction ids and argument hashes', () => {
  it('an id sorts by time, carries 128 random bits and its partition', () => {
    const a = newInteractionId(1_000, 3);
    const b = newInteractionId(1_000, 3);
    expect(a).toMatch(INTERACTION_ID_PATTERN);
    expect(a).not.toBe(b);
    expect(a.slice(10, 42)).toMatch(/^[0-9a-f]{32}$/);
    expect(a.slice(42)).toBe('03');
    expect(newInteractionId(999, 0) < newInteractionId(1_000, 0)).toBe(true);
  });

  it('canonical JSON sorts keys at every depth, keeps array order, drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson('x')).toBe('"x"');
  });

  it('argsHash is the SHA-256 of the canonical JSON: key order does not matter, values do', () => {
    expect(argsHash({ b: [1, 2], a: 1 })).toBe(argsHash({ a: 1, b: [1, 2] }));
    expect(argsHash({ a: 1, b: [2, 1] })).not.toBe(argsHash({ a: 1, b: [1, 2] }));
    // sha256 of the two characters {}
    expect(argsHash({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });
});
