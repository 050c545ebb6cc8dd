/**
 * Where a server line about a jq field says its jq does not compile: jq names
 * `line L, column C` (1-based) of the program; the range runs from there to the
 * end of the token (at least one character), clamped to the text. Null for
 * other lines, and for a stored template's error (its position is in the
 * template, not in this text).
 */
export function jqErrorRange(text: string, line: string): { from: number; to: number } | null {
  const m = /^[^\s(]+ does not compile: .*?\bline (\d+), column (\d+)\b/.exec(line);
  if (!m || text === '') return null;
  const lines = text.split('\n');
  const row = lines[Number(m[1]) - 1];
  if (row === undefined) return null;
  let from = lines.slice(0, Number(m[1]) - 1).reduce((n, l) => n + l.length + 1, 0) + Math.min(Number(m[2]) - 1, row.length);
  // "unexpected end of file" points past the last character: underline the one before.
  if (from >= text.length || text[from] === '\n') from = Math.max(0, from - 1);
  let to = from + 1;
  while (to < text.length && !/\s/.test(text.charAt(to)) && !/\s/.test(text.charAt(from))) to++;
  return { from, to };
}
