import { assignOwn, setOwn } from './own';

describe('setOwn / assignOwn', () => {
  it('keeps __proto__ and constructor as own keys, in order, without touching the prototype', () => {
    const o: Record<string, unknown> = { a: 1 };
    setOwn(o, '__proto__', { polluted: true });
    setOwn(o, 'constructor', 'c');
    expect(Object.keys(o)).toEqual(['a', '__proto__', 'constructor']);
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect((o as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(o)).toBe('{"a":1,"__proto__":{"polluted":true},"constructor":"c"}');
  });

  it('assignOwn copies a parsed payload key for key (Object.assign would change the prototype)', () => {
    const from = JSON.parse('{"__proto__":{"x":1},"b":2}') as Record<string, unknown>;
    const to = assignOwn({}, from);
    expect(Object.keys(to)).toEqual(['__proto__', 'b']);
    expect((to as { x?: unknown }).x).toBeUndefined();
    expect((Object.assign({}, from) as { x?: unknown }).x).toBe(1); // the bug this avoids
  });
});
