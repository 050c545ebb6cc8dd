import { diffText, lineDiff, type DiffLine } from '../src/line-diff';

/** A diff as the audit page prints it: one `op text` line each. */
const show = (lines: DiffLine[]) => lines.map((l) => `${l.op}${l.text}`);

/** The audit page's before/after diff: a line diff over JSON with sorted keys. */
describe('console: the line diff of an audit entry', () => {
  it('keeps the common lines and marks what was removed before what was added in its place', () => {
    expect(show(lineDiff('a\nb\nc\nd', 'a\nx\nc\nd\ne'))).toEqual([' a', '-b', '+x', ' c', ' d', '+e']);
    expect(show(lineDiff('same\nlines', 'same\nlines'))).toEqual([' same', ' lines']);
  });

  it('reads an empty side as no lines: a creation is all added, a removal all removed', () => {
    expect(show(lineDiff('', 'a\nb'))).toEqual(['+a', '+b']);
    expect(show(lineDiff('a\nb', ''))).toEqual(['-a', '-b']);
    expect(lineDiff('', '')).toEqual([]);
  });

  it('does not align sides past 2000 lines: all removed, then all added', () => {
    const big = Array.from({ length: 2001 }, (_, i) => `line ${i}`).join('\n');
    const out = lineDiff(big, 'line 0');
    expect(out).toHaveLength(2002);
    expect(out.slice(0, 2001).every((l) => l.op === '-')).toBe(true);
    expect(out[2001]).toEqual({ op: '+', text: 'line 0' });
  });

  it('prints values with sorted keys at every depth, so a change of key order is no change', () => {
    const before = { b: 1, a: { d: [{ z: 1, y: 2 }], c: 'x' } };
    const after = { a: { c: 'x', d: [{ y: 2, z: 1 }] }, b: 1 };
    expect(diffText(before)).toBe(diffText(after));
    expect(lineDiff(diffText(before), diffText(after)).every((l) => l.op === ' ')).toBe(true);
    expect(diffText({ b: 1, a: 2 })).toBe('{\n  "a": 2,\n  "b": 1\n}');
    // Arrays keep their order: a reordered list is a change.
    expect(diffText([2, 1])).not.toBe(diffText([1, 2]));
  });

  it('prints no lines for a value that is not there, so its diff is the other side whole', () => {
    expect(diffText(null)).toBe('');
    expect(diffText(undefined)).toBe('');
    expect(show(lineDiff(diffText(null), diffText({ a: 1 })))).toEqual(['+{', '+  "a": 1', '+}']);
  });
});
