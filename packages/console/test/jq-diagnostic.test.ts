import { jqErrorRange } from '../src/jq-diagnostic';

/** The console's jq editor underlines the column a jq compile error names (the line as the API answers it). */
describe('jqErrorRange: a jq compile error to the range the editor underlines', () => {
  const at = (text: string, line: string) => {
    const r = jqErrorRange(text, line);
    return r && text.slice(r.from, r.to);
  };

  it('underlines the token at the line and column jq names', () => {
    const line = 'condition does not compile: jq: error: syntax error, unexpected end of file at <top-level>, line 1, column 9';
    expect(jqErrorRange('.action ==', line)).toEqual({ from: 8, to: 10 });
    expect(at('.a | foo(1)', 'start_expr does not compile: jq: error: foo/1 is not defined at <top-level>, line 1, column 6')).toBe('foo(1)');
  });

  it('counts lines: column 5 of line 2 is the fifth character after the first newline', () => {
    expect(at('.a | .b\n  | ) ', 'condition does not compile: jq: error: syntax error, unexpected INVALID_CHARACTER at <top-level>, line 2, column 5')).toBe(
      ')',
    );
  });

  it('a column past the end underlines the last character', () => {
    expect(jqErrorRange('.x =', 'condition does not compile: jq: error: syntax error, unexpected end of file at <top-level>, line 1, column 5')).toEqual({
      from: 3,
      to: 4,
    });
  });

  it('nothing for other lines, a stored template, or a line past the text', () => {
    expect(jqErrorRange('.a', "unknown field 'conditon'; did you mean 'condition'?")).toBeNull();
    expect(jqErrorRange('.a', "condition (stored id 'jq/x') does not compile: jq: error: $want is not defined at <top-level>, line 1, column 1")).toBeNull();
    expect(jqErrorRange('.a', 'condition does not compile: jq: error: x at <top-level>, line 3, column 1')).toBeNull();
  });
});
