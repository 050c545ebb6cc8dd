/** Times as the console shows them (pure, so tests read them without a browser); `When` in util.tsx renders them. */

/** An absolute time with its zone, in the browser's locale and zone (`12/2/2026, 13:05:12 UTC`); `—` for none. */
export function time(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { hour12: false, timeZoneName: 'short' });
}

/** How long ago (or how soon) a time is, in words: `just now`, `42 s ago`, `3 min ago`, `in 5 min`, `2 h ago`, `4 d ago`. */
export function relativeTime(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const d = now - at;
  const abs = Math.abs(d);
  const say = (n: number, unit: string) => (d >= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`);
  if (abs < 5_000) return 'just now';
  if (abs < 60_000) return say(Math.floor(abs / 1000), 's');
  if (abs < 3_600_000) return say(Math.floor(abs / 60_000), 'min');
  if (abs < 86_400_000) return say(Math.floor(abs / 3_600_000), 'h');
  return say(Math.floor(abs / 86_400_000), 'd');
}
