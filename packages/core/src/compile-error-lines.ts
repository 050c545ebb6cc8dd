/**
 * The 400 lines for an expression that does not compile, as `<at> does not
 * compile: <jq's error>` followed by jq's program line and caret as lines of
 * their own (so a client prints the caret under its column). The jq engine
 * puts those lines in the error's `details`; an error without them is one line.
 * In core so that every place that checks a jq field (hooks, templates, the
 * approval policy's `when`, dedupe keys) answers the same shape.
 */
export function compileErrorLines(at: string, err: unknown): string[] {
  const details = (err as { details?: unknown }).details;
  const lines = Array.isArray(details) ? details.filter((d): d is string => typeof d === 'string') : [];
  if (lines.length === 0) return [`${at} does not compile: ${(err as Error).message}`];
  return [`${at} does not compile: ${lines[0]}`, ...lines.slice(1)];
}
