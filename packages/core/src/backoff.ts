/**
 * Delay before attempt `attempt + 1`, after `attempt` attempts failed:
 * `min(base * 2^(attempt-1), cap)`. Pure, so it has its own table test.
 */
export function backoffMs(attempt: number, baseMs: number, capMs: number): number {
  if (attempt < 1) return 0;
  const exp = Math.min(attempt - 1, 52);
  return Math.min(baseMs * 2 ** exp, capMs);
}
