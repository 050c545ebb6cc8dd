/**
 * What a fault run counts, from the sender's answers, the kept runs and the
 * sink's calls, and the promise it checks.
 */
import type { RunView } from '../e2e/api';
import type { Delivery } from './sender';
import type { SinkCall } from './sink';

export const TERMINAL = new Set(['succeeded', 'skipped', 'failed', 'discarded', 'denied', 'cancelled']);

export interface FaultCount {
  fault: string;
  events: number;
  accepted: number;
  duplicate: number;
  gaveUp: number;
  /** Accepted (or answered duplicate) events missing a run of some hook. */
  lost: number[];
  /** Of the lost: deliveries answered `200 duplicate` that have no run. */
  duplicateWithoutRuns: number;
  /** Events kept more than once (a second event for one delivery). */
  keptTwice: number[];
  /** Runs whose non-resumable tool was called more than once. */
  calledTwice: string[];
  /** Runs not terminal when the wait ended. */
  notTerminal: string[];
  /** Resumable calls whose key is no run of the resumable hook, or whose input is another event's. */
  badReplayKeys: string[];
  /** Runs of the resumable tool replayed (called more than once with the same key). */
  replays: number;
  /** Runs held failed, per hook suffix, and how many of those had their tool call answered 200. */
  failedOnce: number;
  failedResume: number;
  failedAfterAnswered: number;
  /** The errors of the failed runs, by message (run ids cut out), most frequent first. */
  failedErrors: Array<[string, number]>;
  notes: string[];
}

export function count(fault: string, deliveries: Delivery[], once: RunView[], resume: RunView[], calls: SinkCall[]): FaultCount {
  const byN = (runs: RunView[]) => {
    const m = new Map<number, RunView[]>();
    for (const r of runs) {
      const n = (r as unknown as { payload?: { n?: number } }).payload?.n;
      if (typeof n !== 'number') continue;
      m.set(n, [...(m.get(n) ?? []), r]);
    }
    return m;
  };
  const onceByN = byN(once);
  const resumeByN = byN(resume);
  const mine = calls.filter((c) => c.body.f === fault);
  const keyCount = (tool: string) => {
    const m = new Map<string, SinkCall[]>();
    for (const c of mine.filter((x) => x.tool === tool)) m.set(c.key, [...(m.get(c.key) ?? []), c]);
    return m;
  };
  const onceCalls = keyCount('once');
  const resumeCalls = keyCount('resume');
  const resumeById = new Map(resume.map((r) => [r.id, r]));

  const lost: number[] = [];
  const keptTwice: number[] = [];
  for (const d of deliveries) {
    if (d.final === 'gave up') continue;
    if (!onceByN.has(d.n) || !resumeByN.has(d.n)) lost.push(d.n);
    if ((onceByN.get(d.n)?.length ?? 0) > 1 || (resumeByN.get(d.n)?.length ?? 0) > 1) keptTwice.push(d.n);
  }
  const badReplayKeys: string[] = [];
  for (const [key, cs] of resumeCalls) {
    const run = resumeById.get(key);
    const n = (run as unknown as { payload?: { n?: number } } | undefined)?.payload?.n;
    if (!run || cs.some((c) => c.body.n !== n)) badReplayKeys.push(key);
  }
  const answered = new Set(
    [...onceCalls.values(), ...resumeCalls.values()]
      .flat()
      .filter((c) => c.answered)
      .map((c) => c.key),
  );
  const failed = [...once, ...resume].filter((r) => r.status === 'failed');
  return {
    fault,
    events: deliveries.length,
    accepted: deliveries.filter((d) => d.final === 'accepted').length,
    duplicate: deliveries.filter((d) => d.final === 'duplicate').length,
    gaveUp: deliveries.filter((d) => d.final === 'gave up').length,
    lost,
    duplicateWithoutRuns: deliveries.filter((d) => d.final === 'duplicate' && lost.includes(d.n)).length,
    keptTwice,
    calledTwice: [...onceCalls].filter(([, cs]) => cs.length > 1).map(([k]) => k),
    notTerminal: [...once, ...resume].filter((r) => !TERMINAL.has(r.status)).map((r) => `${r.id} ${r.status}`),
    badReplayKeys,
    replays: [...resumeCalls.values()].filter((cs) => cs.length > 1).length,
    failedOnce: once.filter((r) => r.status === 'failed').length,
    failedResume: resume.filter((r) => r.status === 'failed').length,
    failedAfterAnswered: failed.filter((r) => answered.has(r.id)).length,
    failedErrors: errorsOf(failed),
    notes: [],
  };
}

function errorsOf(runs: RunView[]): Array<[string, number]> {
  const m = new Map<string, number>();
  for (const r of runs) {
    const msg = `${r.error?.kind ?? '?'}: ${(r.error?.message ?? '').replace(/\b[0-9A-Za-z]{26,}\b/g, '<id>').slice(0, 90)}`;
    m.set(msg, (m.get(msg) ?? 0) + 1);
  }
  return [...m].sort((a, b) => b[1] - a[1]);
}

/** The closing table: one row per fault. */
export function table(rows: FaultCount[]): string {
  const head = '| fault | events | accepted | duplicate | lost | run twice | notes |\n|---|---|---|---|---|---|---|';
  const lines = rows.map((r) => {
    const notes = [
      r.duplicateWithoutRuns ? `${r.duplicateWithoutRuns} answered duplicate with no run anywhere` : '',
      `${r.failedOnce} non-resumable runs held failed`,
      `${r.replays} resumable replays`,
      r.failedResume ? `${r.failedResume} resumable runs failed` : '',
      r.failedAfterAnswered ? `${r.failedAfterAnswered} runs failed although their tool call was answered 200` : '',
      r.calledTwice.length ? `${r.calledTwice.length} non-resumable calls made twice` : '',
      r.keptTwice.length ? `${r.keptTwice.length} events kept twice` : '',
      r.gaveUp ? `${r.gaveUp} deliveries given up by the sender` : '',
      r.notTerminal.length ? `${r.notTerminal.length} runs not terminal` : '',
      r.badReplayKeys.length ? `${r.badReplayKeys.length} replays under a foreign key` : '',
      ...r.notes,
      ...r.failedErrors.slice(0, 2).map(([msg, k]) => `failed x${k}: "${msg}"`),
    ].filter(Boolean);
    // Run twice: a non-resumable call made twice for one run, or one delivery kept as two events.
    return `| ${r.fault} | ${r.events} | ${r.accepted} | ${r.duplicate} | ${r.lost.length} | ${r.calledTwice.length + r.keptTwice.length} | ${notes.join('; ')} |`;
  });
  return [head, ...lines].join('\n');
}
