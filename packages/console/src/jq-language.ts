import { StreamLanguage, type StreamParser } from '@codemirror/language';

const KEYWORDS = new Set([
  'if',
  'then',
  'elif',
  'else',
  'end',
  'as',
  'def',
  'reduce',
  'foreach',
  'try',
  'catch',
  'label',
  'import',
  'include',
  'and',
  'or',
  'not',
  '__loc__',
]);
const ATOMS = new Set(['true', 'false', 'null']);

interface State {
  /** Nesting of string interpolations `\( … )`: parens to close before the string resumes. */
  interp: number[];
  inString: boolean;
}

/** A small jq tokenizer for highlighting (strings with interpolation, paths, $variables, keywords, numbers, comments). */
const jqParser: StreamParser<State> = {
  name: 'jq',
  startState: () => ({ interp: [], inString: false }),
  copyState: (s) => ({ interp: [...s.interp], inString: s.inString }),
  token(stream, state) {
    if (state.inString) {
      while (!stream.eol()) {
        if (stream.match('\\(')) {
          state.inString = false;
          state.interp.push(0);
          return 'string';
        }
        const ch = stream.next();
        if (ch === '\\') stream.next();
        else if (ch === '"') {
          state.inString = false;
          return 'string';
        }
      }
      return 'string';
    }
    if (stream.eatSpace()) return null;
    if (stream.match('#')) {
      stream.skipToEnd();
      return 'comment';
    }
    const ch = stream.peek()!;
    if (ch === '"') {
      stream.next();
      state.inString = true;
      return 'string';
    }
    if (state.interp.length) {
      const top = state.interp.length - 1;
      if (ch === '(') state.interp[top] += 1;
      if (ch === ')') {
        if (state.interp[top] === 0) {
          stream.next();
          state.interp.pop();
          state.inString = true;
          return 'string';
        }
        state.interp[top] -= 1;
      }
    }
    if (stream.match(/^\$[A-Za-z_][A-Za-z0-9_]*/)) return 'variableName';
    if (stream.match(/^\.[A-Za-z_][A-Za-z0-9_]*/)) return 'propertyName';
    if (stream.match(/^-?\d+(\.\d+)?([eE][+-]?\d+)?/)) return 'number';
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*/)) {
      const word = stream.current();
      if (KEYWORDS.has(word)) return 'keyword';
      if (ATOMS.has(word)) return 'atom';
      return 'function';
    }
    if (stream.match(/^(==|!=|<=|>=|\/\/=?|\|=|\+=|-=|\*=|\/=|%=|\.\.|\?\/\/|[|,+\-*/%<>=?])/)) return 'operator';
    stream.next();
    return 'punctuation';
  },
  languageData: { commentTokens: { line: '#' } },
};

export const jq = StreamLanguage.define(jqParser);
