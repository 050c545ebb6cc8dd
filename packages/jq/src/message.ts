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
