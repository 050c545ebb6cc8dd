/**
 * Per-minute run counters, kept by the run transitions in the step they
 * already take (stats.lua on Redis, MemoryStats here), and the series the
 * console charts are read from. Both stores keep the same fields per minute:
 *   <m>|<hook>  one hook (the first STATS_MAX_HOOKS of the minute)   <m>|*  the later hooks together
 *   h|<hook>    that hook is counted                                 n      how many hooks are
 * The totals are the sum of all. m: a accepted, s succeeded, f failed, k skipped, d denied, p approvals asked for; q<i>
 * accept-to-start and t<i> tool duration in histogram bucket i (at most 2^i ms; the last bucket
 * is everything longer). Mirrored in stats.lua.
 */

export const STATS_MINUTE_MS = 60_000;
/** A minute's counters live this long after its last write (Redis TTL); the memory store keeps as many minutes. */
export const STATS_TTL_MS = 25 * 3_600_000;
/** Hooks counted one by one per minute (per partition on Redis); later ones are counted together (`*`), in the totals only. */
export const STATS_MAX_HOOKS = 100;
/** Histogram buckets: bucket i holds durations of at most 2^i ms (i = 0..24); bucket 25 everything over 2^24 ms (about 4.7 h). */
export const STATS_BUCKETS = 26;

/** The hook name the hooks past STATS_MAX_HOOKS of a minute are counted under (no hook name can be it). */
const OTHER_HOOKS = '*';

const OUTCOME_FIELDS = { succeeded: 's', failed: 'f', skipped: 'k', denied: 'd' } as const;
export type CountedOutcome = keyof typeof OUTCOME_FIELDS;

/** The outcome's counter field, or null for an outcome not counted (cancelled, discarded...). */
export function outcomeField(status: string): string | null {
  return (OUTCOME_FIELDS as Record<string, string>)[status] ?? null;
}

/** The histogram bucket of a duration (stats_bucket in stats.lua). */
export function statsBucket(ms: number): number {
  let i = 0;
  let bound = 1;
  while (bound < ms && i < STATS_BUCKETS - 1) {
    bound *= 2;
    i += 1;
  }
  return i;
}

/** What a bucket reads as: its upper bound, 2^i ms (the open top bucket reads as 2^25 ms). */
export const bucketUpperMs = (i: number): number => 2 ** i;

/** The counts of one minute (or of several, added), for every hook or one. */
export interface StatsCounts {
  accepted: number;
  succeeded: number;
  failed: number;
  skipped: number;
  denied: number;
  /** Approvals asked for (an interaction of kind approval opened by park). */
  approvals: number;
  /** Histogram of accept-to-start (first claim - accepted), STATS_BUCKETS counts. */
  accept_to_start: number[];
  /** Histogram of tool duration (finish - the last attempt's claim), STATS_BUCKETS counts. */
  tool_duration: number[];
}

/** One minute's counters summed over partitions: `minute` is floor(ms / 60000). */
export interface MinuteStats {
  minute: number;
  total: StatsCounts;
  hooks: Record<string, StatsCounts>;
}

export const emptyCounts = (): StatsCounts => ({
  accepted: 0,
  succeeded: 0,
  failed: 0,
  skipped: 0,
  denied: 0,
  approvals: 0,
  accept_to_start: new Array<number>(STATS_BUCKETS).fill(0),
  tool_duration: new Array<number>(STATS_BUCKETS).fill(0),
});

export function addCounts(into: StatsCounts, from: StatsCounts): StatsCounts {
  into.accepted += from.accepted;
  into.succeeded += from.succeeded;
  into.failed += from.failed;
  into.skipped += from.skipped;
  into.denied += from.denied;
  into.approvals += from.approvals;
  for (let i = 0; i < STATS_BUCKETS; i += 1) {
    into.accept_to_start[i]! += from.accept_to_start[i] ?? 0;
    into.tool_duration[i]! += from.tool_duration[i] ?? 0;
  }
  return into;
}

const METRIC: Record<string, keyof Omit<StatsCounts, 'accept_to_start' | 'tool_duration'>> = {
  a: 'accepted',
  s: 'succeeded',
  f: 'failed',
  k: 'skipped',
  d: 'denied',
  p: 'approvals',
};

function addField(counts: StatsCounts, metric: string, n: number): void {
  const plain = METRIC[metric];
  if (plain) counts[plain] += n;
  else if (/^[qt]\d+$/.test(metric)) {
    const i = Number(metric.slice(1));
    if (i < STATS_BUCKETS) (metric[0] === 'q' ? counts.accept_to_start : counts.tool_duration)[i]! += n;
  }
}

/** Adds one stored minute hash (either store's fields) into `into`. */
export function addStatsFields(into: MinuteStats, fields: Record<string, string | number>): MinuteStats {
  for (const [field, raw] of Object.entries(fields)) {
    const n = Number(raw);
    const bar = field.indexOf('|');
    if (!Number.isFinite(n) || bar < 0 || field.startsWith('h|')) continue;
    const metric = field.slice(0, bar);
    const hook = field.slice(bar + 1);
    addField(into.total, metric, n);
    if (hook === OTHER_HOOKS) continue;
    if (!Object.hasOwn(into.hooks, hook)) into.hooks[hook] = emptyCounts();
    addField(into.hooks[hook]!, metric, n);
  }
  return into;
}

export const emptyMinute = (minute: number): MinuteStats => ({ minute, total: emptyCounts(), hooks: Object.create(null) as Record<string, StatsCounts> });

/** The memory store's counters: the same fields as stats.lua, per minute, at most STATS_TTL_MS of minutes behind the newest. */
export class MemoryStats {
  private readonly minutes = new Map<number, Map<string, number>>();
  private newest = -Infinity;

  add(now: number, hook: string, ...metrics: string[]): void {
    const minute = Math.floor(now / STATS_MINUTE_MS);
    const keep = STATS_TTL_MS / STATS_MINUTE_MS;
    if (minute < this.newest - keep) return;
    let fields = this.minutes.get(minute);
    if (!fields) {
      fields = new Map();
      this.minutes.set(minute, fields);
      if (minute > this.newest) {
        this.newest = minute;
        for (const m of this.minutes.keys()) if (m < minute - keep) this.minutes.delete(m);
      }
    }
    let counted = hook;
    if (!fields.has(`h|${hook}`)) {
      if ((fields.get('n') ?? 0) < STATS_MAX_HOOKS) {
        fields.set(`h|${hook}`, 1);
        fields.set('n', (fields.get('n') ?? 0) + 1);
      } else counted = OTHER_HOOKS;
    }
    for (const m of metrics) fields.set(`${m}|${counted}`, (fields.get(`${m}|${counted}`) ?? 0) + 1);
  }

  read(fromMinute: number, toMinute: number): MinuteStats[] {
    const out: MinuteStats[] = [];
    for (let m = fromMinute; m <= toMinute; m += 1) {
      const fields = this.minutes.get(m);
      if (fields) out.push(addStatsFields(emptyMinute(m), Object.fromEntries(fields)));
    }
    return out;
  }
}

export const STATS_WINDOWS = { '1h': { minutes: 60, step: 1 }, '24h': { minutes: 1440, step: 15 } } as const;
export type StatsWindow = keyof typeof STATS_WINDOWS;

export interface Percentiles {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** p50/p95/p99 of a histogram, each the upper bound of the bucket holding that rank (null without data). */
export function percentiles(histogram: readonly number[]): Percentiles {
  const count = histogram.reduce((a, b) => a + b, 0);
  const at = (q: number): number | null => {
    if (count === 0) return null;
    const rank = Math.ceil(q * count);
    let seen = 0;
    for (let i = 0; i < histogram.length; i += 1) {
      seen += histogram[i] ?? 0;
      if (seen >= rank) return bucketUpperMs(i);
    }
    return bucketUpperMs(histogram.length - 1);
  };
  return { count, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

export interface SeriesPoint {
  at: string;
  accepted: number;
  succeeded: number;
  failed: number;
  skipped: number;
  denied: number;
  accept_to_start_ms: Percentiles;
  tool_duration_ms: Percentiles;
}

export interface FailingHook {
  hook: string;
  failed: number;
  succeeded: number;
  accepted: number;
}

export interface StatsSeries {
  window: StatsWindow;
  hook: string | null;
  step_seconds: number;
  from: string;
  to: string;
  points: SeriesPoint[];
  /** The hooks counted in the window, by name (the hook selector). */
  hooks: string[];
  /** Hooks with failures in the window, most failures first (at most 10). */
  top_failing: FailingHook[];
  /** Agents whose calls were denied in the window, most denials first (at most 10). */
  denied_by_agent: DeniedAgent[];
}

export interface DeniedAgent {
  agent: string;
  denied: number;
  accepted: number;
}

/** The hook an agent's calls run under (AGENT_HOOK_PREFIX of @hookyard/core). */
const AGENT_HOOK = 'agent:';

/** A hook's plain counts: a StatsCounts without its histograms. */
export type PlainCounts = Omit<StatsCounts, 'accept_to_start' | 'tool_duration'>;

/** The plain counts of `c`. */
export const plainCounts = ({ accept_to_start: _q, tool_duration: _t, ...plain }: StatsCounts): PlainCounts => plain;

/** The plain counts of the hooks whose name starts with `prefix`, summed over `minutes` (the memory store's `hookTotals`). */
export function hookTotalsOf(minutes: readonly MinuteStats[], prefix: string): Map<string, PlainCounts> {
  return new Map([...countsByHook(minutes)].filter(([hook]) => hook.startsWith(prefix)).map(([hook, c]) => [hook, plainCounts(c)]));
}

/** Each hook's counts summed over `minutes` (the hooks counted one by one; `*` is in no hook's). */
export function countsByHook(minutes: readonly MinuteStats[]): Map<string, StatsCounts> {
  const perHook = new Map<string, StatsCounts>();
  for (const m of minutes) for (const [name, c] of Object.entries(m.hooks)) addCounts(perHook.get(name) ?? perHook.set(name, emptyCounts()).get(name)!, c);
  return perHook;
}

/** The minutes a window covers at `now`: whole steps, the last one holding now's minute. */
export function windowMinutes(window: StatsWindow, now: number): { from: number; to: number } {
  const { minutes, step } = STATS_WINDOWS[window];
  const nowMinute = Math.floor(now / STATS_MINUTE_MS);
  const lastStart = nowMinute - (nowMinute % step);
  return { from: lastStart - minutes + step, to: lastStart + step - 1 };
}

/** The series of `window` ending at `now` from the stored minutes, for every hook or `hook`. */
export function statsSeries(minutes: readonly MinuteStats[], window: StatsWindow, hook: string | null, now: number): StatsSeries {
  const { minutes: span, step } = STATS_WINDOWS[window];
  const { from, to } = windowMinutes(window, now);
  const steps = Array.from({ length: span / step }, emptyCounts);
  const inWindow = minutes.filter((m) => m.minute >= from && m.minute <= to);
  for (const m of inWindow) {
    const counts = hook === null ? m.total : m.hooks[hook];
    if (counts) addCounts(steps[Math.floor((m.minute - from) / step)]!, counts);
  }
  const perHook = countsByHook(inWindow);
  const iso = (minute: number) => new Date(minute * STATS_MINUTE_MS).toISOString();
  return {
    window,
    hook,
    step_seconds: step * 60,
    from: iso(from),
    to: iso(to + 1),
    points: steps.map((c, i) => ({
      at: iso(from + i * step),
      accepted: c.accepted,
      succeeded: c.succeeded,
      failed: c.failed,
      skipped: c.skipped,
      denied: c.denied,
      accept_to_start_ms: percentiles(c.accept_to_start),
      tool_duration_ms: percentiles(c.tool_duration),
    })),
    hooks: [...perHook.keys()].sort(),
    top_failing: [...perHook]
      .filter(([, c]) => c.failed > 0)
      .sort(([a, x], [b, y]) => y.failed - x.failed || (a < b ? -1 : 1))
      .slice(0, 10)
      .map(([name, c]) => ({ hook: name, failed: c.failed, succeeded: c.succeeded, accepted: c.accepted })),
    denied_by_agent: [...perHook]
      .filter(([name, c]) => name.startsWith(AGENT_HOOK) && c.denied > 0)
      .sort(([a, x], [b, y]) => y.denied - x.denied || (a < b ? -1 : 1))
      .slice(0, 10)
      .map(([name, c]) => ({ agent: name.slice(AGENT_HOOK.length), denied: c.denied, accepted: c.accepted })),
  };
}
