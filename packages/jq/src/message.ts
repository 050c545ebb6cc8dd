/**
 * jq's stderr, made fit for a run's error and a 400 line: the input position
 * jq-wasm always reports (`(at /dev/stdin:0)`, meaningless here) is dropped,
 * and the lines of a compile error (message, program, caret, count) are
 * joined into one.
 */
export function tidyJqMessage(stderr: string): string {
  return stderr
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '')
    .join(' | ')
    .replace(/ \(at (?:\/dev\/stdin|<stdin>|<unknown>):\d+\)/g, '');
}

/**
 * jq's own lines of a compile error, as jq prints them: each error line (its
 * trailing colon dropped), then the program line indented four spaces and the
 * carets under the column it names; jq's closing count ("jq: 1 compile
 * error") is left out. Empty for a one-line error (a runtime error has no
 * program line to show).
 */
export function jqErrorLines(stderr: string): string[] {
  const lines = stderr
    .split('\n')
    .map((l) => l.trimEnd().replace(/ \(at (?:\/dev\/stdin|<stdin>|<unknown>):\d+\)/g, ''))
    .filter((l) => l !== '' && !/^jq: \d+ compile errors?$/.test(l));
  if (lines.length < 2) return [];
  return lines.map((l) => (l.startsWith('jq: error') ? l.replace(/:$/, '') : l));
}
